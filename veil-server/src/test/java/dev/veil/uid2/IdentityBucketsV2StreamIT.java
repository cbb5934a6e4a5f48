package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.http.testing.RawHttp;
import dev.veil.http.testing.TestNode;
import dev.veil.observability.RequestMetrics;
import dev.veil.salt.SaltSnapshot;
import dev.veil.testing.Http;
import dev.veil.testing.UnreadBuckets;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Large and slow answers of {@code POST /v2/identity/buckets}: sealed chunk by chunk within the
 * node's stream budget, as v1's answer is streamed, and still one answer that the JDK alone opens.
 */
class IdentityBucketsV2StreamIT {
  private static final int BUCKETS = 262_144; // an answer of about 23 MB of text
  private static final long NONCE = 0x5eed_5eed_5eed_5eedL;
  private static final int CHUNK = 32 * 1024;

  private static HttpClient http11() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  private static byte[] v1Answer(TestNode node, CreatedClient mapper) throws Exception {
    return http11()
        .send(
            HttpRequest.newBuilder(node.uri("/v1/identity/buckets?since_timestamp=0"))
                .header("Authorization", Http.bearer(mapper.key().reveal()))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray())
        .body();
  }

  @Test
  void aQuarterMillionBuckets_openWithTheJdkAlone_intoV1sAnswer() throws Exception {
    try (TestNode big = TestNode.start(Map.of("salt.buckets", Integer.toString(BUCKETS)))) {
      CreatedClient mapper = big.newClient(Role.MAPPER);

      HttpResponse<byte[]> sealed =
          http11()
              .send(
                  BucketsV2Wire.request(big, mapper, "2025-03-01T11:59:59", NONCE),
                  HttpResponse.BodyHandlers.ofByteArray());

      assertThat(sealed.statusCode()).isEqualTo(200);
      assertThat(sealed.headers().firstValue("Transfer-Encoding")).hasValue("chunked");
      byte[] json = BucketsV2Wire.open(sealed.body(), big, mapper, NONCE);
      assertThat(json).isEqualTo(v1Answer(big, mapper));
      SaltSnapshot snapshot = big.services().salts().current();
      List<String> ids = bucketIds(new ByteArrayInputStream(json));
      assertThat(ids).hasSize(BUCKETS);
      assertThat(ids.get(0)).isEqualTo(snapshot.bucketId(0));
      assertThat(ids.get(BUCKETS - 1)).isEqualTo(snapshot.bucketId(BUCKETS - 1));
    }
  }

  @Test
  void slowReaders_takeTurnsWithinABudgetOfTwoChunks_andEachGetsTheWholeAnswer() throws Exception {
    ExecutorService readers = Executors.newFixedThreadPool(3);
    try (TestNode big =
        TestNode.start(
            Map.of(
                "salt.buckets",
                Integer.toString(BUCKETS),
                "limits.stream-buffer-bytes",
                Integer.toString(2 * CHUNK)))) {
      CreatedClient mapper = big.newClient(Role.MAPPER);
      byte[] expected = v1Answer(big, mapper);

      List<Future<byte[]>> answers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        long nonce = NONCE + i;
        answers.add(
            readers.submit(
                () -> BucketsV2Wire.open(readSlowly(big, mapper, nonce), big, mapper, nonce)));
      }
      long maxWaiting = 0;
      while (!answers.stream().allMatch(Future::isDone)) {
        maxWaiting = Math.max(maxWaiting, gauge(big, "veil_http_stream_waiting"));
        Thread.sleep(5);
      }

      for (Future<byte[]> answer : answers) {
        assertThat(answer.get()).isEqualTo(expected);
      }
      assertThat(maxWaiting).as("streams that waited for budget").isPositive();
      assertThat(gauge(big, "veil_http_stream_buffered_bytes")).isZero();
    } finally {
      readers.shutdownNow();
    }
  }

  /**
   * Reads the answer 4 KiB at a time with a pause after every 16 KiB, slower than the node writes
   * it, so once the socket buffers are full the answer backs up into the node.
   */
  private static byte[] readSlowly(TestNode node, CreatedClient mapper, long nonce)
      throws IOException, InterruptedException {
    HttpResponse<InputStream> response =
        http11()
            .send(
                BucketsV2Wire.request(node, mapper, "0", nonce),
                HttpResponse.BodyHandlers.ofInputStream());
    assertThat(response.statusCode()).isEqualTo(200);
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    byte[] piece = new byte[4096];
    int sincePause = 0;
    try (InputStream in = response.body()) {
      for (int n = in.read(piece); n >= 0; n = in.read(piece)) {
        text.write(piece, 0, n);
        sincePause += n;
        if (sincePause >= 16 * 1024) {
          sincePause = 0;
          Thread.sleep(1);
        }
      }
    }
    return text.toByteArray();
  }

  @Test
  void aClientThatStopsReading_holdsTheStreamUntilItLeaves() throws Exception {
    try (TestNode big = TestNode.start(Map.of("salt.buckets", Integer.toString(BUCKETS)))) {
      CreatedClient mapper = big.newClient(Role.MAPPER);
      RequestMetrics series = big.metrics().httpRequests(BucketsV2Wire.PATH, "POST");
      try (RawHttp raw = RawHttp.connect(big.port())) {
        String head = raw.write(BucketsV2Wire.rawRequest(big, mapper, "0", NONCE)).readResponse();
        assertThat(head).startsWith("HTTP/1.1 200").contains("transfer-encoding: chunked");
      }
      // About 23 MB of answer cannot fit in socket buffers: with backpressure the stream waits
      // for the reader and ends as "client closed" (499), never as a completed 200.
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (series.count(499) == 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(series.count(499)).isEqualTo(1);
      assertThat(series.count(200)).isZero();
      assertThat(big.get("/ops/healthz", null).code()).isEqualTo(200);
    }
  }

  @Test
  void unreadAnswers_holdAtMostTheBudget_othersWait_andEachIsClosedOnceStalled() throws Exception {
    int budget = 4 * CHUNK;
    try (TestNode big =
        TestNode.start(
            Map.of(
                "salt.buckets",
                Integer.toString(BUCKETS),
                "limits.stream-buffer-bytes",
                Integer.toString(budget),
                "http.stream-stall-timeout",
                "1s"))) {
      CreatedClient mapper = big.newClient(Role.MAPPER);
      RequestMetrics series = big.metrics().httpRequests(BucketsV2Wire.PATH, "POST");
      byte[] request = BucketsV2Wire.rawRequest(big, mapper, "1", NONCE);
      try (UnreadBuckets unread = UnreadBuckets.open(big.port(), request, 12)) {
        long maxHeld = 0;
        int maxWaiting = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (series.count(499) < 12 && System.nanoTime() < deadline) {
          maxHeld = Math.max(maxHeld, gauge(big, "veil_http_stream_buffered_bytes"));
          maxWaiting = Math.max(maxWaiting, (int) gauge(big, "veil_http_stream_waiting"));
          Thread.sleep(20);
        }

        assertThat(maxHeld).as("bytes held by all streams at once").isEqualTo(budget);
        assertThat(maxWaiting).as("streams that waited for their turn").isPositive();
        assertThat(series.count(499)).as("streams closed").isEqualTo(12);
        assertThat(gauge(big, "veil_http_stream_stalls_total")).isEqualTo(12);
        assertThat(unread.readUntilClosed(Duration.ofSeconds(30)))
            .as("answers cut off")
            .isEqualTo(12);
      }
      assertThat(gauge(big, "veil_http_stream_buffered_bytes")).isZero();
      HttpResponse<byte[]> whole =
          http11()
              .send(
                  BucketsV2Wire.request(big, mapper, "1", NONCE),
                  HttpResponse.BodyHandlers.ofByteArray());
      byte[] json = BucketsV2Wire.open(whole.body(), big, mapper, NONCE);
      assertThat(bucketIds(new ByteArrayInputStream(json))).hasSize(BUCKETS);
    }
  }

  private static long gauge(TestNode node, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + " (\\d+)").matcher(node.metrics().scrape());
    assertThat(m.find()).as("metric %s", name).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static List<String> bucketIds(InputStream json) throws IOException {
    List<String> ids = new ArrayList<>();
    try (JsonParser parser = new JsonFactory().createParser(json)) {
      while (parser.nextToken() != null) {
        if (parser.currentToken() == JsonToken.FIELD_NAME
            && "bucket_id".equals(parser.currentName())) {
          parser.nextToken();
          ids.add(parser.getText());
        }
      }
    }
    return ids;
  }
}
