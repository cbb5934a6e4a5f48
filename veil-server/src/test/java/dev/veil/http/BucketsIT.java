package dev.veil.http;

import static dev.veil.testing.Http.encode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.observability.RequestMetrics;
import dev.veil.salt.SaltSnapshot;
import dev.veil.testing.Http;
import dev.veil.testing.Http.Response;
import dev.veil.testing.TestConfigs;
import dev.veil.testing.UnreadBuckets;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BucketsIT {
  private TestNode node;
  private String mapper;

  @BeforeEach
  void start() {
    node = TestNode.start();
    mapper = node.newApiKey(Role.MAPPER);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private Response buckets(String since) {
    return node.get("/v1/identity/buckets?since_timestamp=" + encode(since), mapper);
  }

  private List<String> ids(Response r) {
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.status()).isEqualTo("success");
    List<String> out = new ArrayList<>();
    r.bodyNode().forEach(n -> out.add(n.path("bucket_id").asText()));
    return out;
  }

  private String bucketId(int index) {
    return node.services().salts().current().bucketId(index);
  }

  @Test
  void buckets_sinceBeforeTheStoreWasCreated_listsEveryBucketAsOfCreation() {
    Response r = buckets("2025-03-01T11:59:59");

    assertThat(ids(r)).hasSize(TestConfigs.BUCKETS).doesNotHaveDuplicates();
    JsonNode first = r.bodyNode().get(0);
    assertThat(first.path("last_updated").asText()).isEqualTo("2025-03-01T12:00:00");
    assertThat(first.size()).isEqualTo(2);
    assertThat(r.header("Transfer-Encoding")).isEqualTo("chunked");
  }

  @Test
  void buckets_sinceExactlyTheCreationTime_isEmptyBecauseOnlyLaterChangesCount() {
    Response r = buckets("2025-03-01T12:00:00");

    assertThat(r.body()).isEqualTo("{\"status\":\"success\",\"body\":[]}");
  }

  @Test
  void buckets_afterRotations_listsRotatedBucketsOrderedByLastUpdated() {
    node.clock().advance(Duration.ofDays(1));
    node.services().salts().rotateBuckets(List.of(bucketId(9), bucketId(5)));
    node.clock().advance(Duration.ofHours(1));
    node.services().salts().rotateBuckets(List.of(bucketId(2)));

    Response r = buckets("2025-03-01T12:00:00");

    assertThat(ids(r)).containsExactly(bucketId(5), bucketId(9), bucketId(2));
    assertThat(r.bodyNode().get(0).path("last_updated").asText()).isEqualTo("2025-03-02T12:00:00");
    assertThat(r.bodyNode().get(2).path("last_updated").asText()).isEqualTo("2025-03-02T13:00:00");
  }

  @Test
  void buckets_rotationAtExactlySinceTimestamp_isExcluded_oneSecondEarlierIncluded() {
    node.clock().advance(Duration.ofDays(1));
    node.services().salts().rotateBuckets(List.of(bucketId(1)));
    node.clock().advance(Duration.ofHours(1));
    node.services().salts().rotateBuckets(List.of(bucketId(3)));

    assertThat(ids(buckets("2025-03-02T12:00:00"))).containsExactly(bucketId(3));
    assertThat(ids(buckets("2025-03-02T11:59:59"))).containsExactly(bucketId(1), bucketId(3));
    assertThat(ids(buckets("2025-03-02T13:00:00"))).isEmpty();
  }

  @Test
  void buckets_rotationEffectiveTimeIsRoundedUpToTheSecond() {
    node.clock().advance(Duration.ofDays(1).plusMillis(300));
    node.services().salts().rotateBuckets(List.of(bucketId(7)));

    Response r = buckets("2025-03-02T12:00:00");

    assertThat(r.bodyNode().get(0).path("last_updated").asText()).isEqualTo("2025-03-02T12:00:01");
  }

  @Test
  void buckets_everyTimestampFormOfTheSameInstant_givesTheSameAnswer() {
    node.clock().advance(Duration.ofDays(1));
    node.services().salts().rotateBuckets(List.of(bucketId(4)));
    long epochSeconds = Instant.parse("2025-03-02T11:59:00Z").getEpochSecond();

    List<String> expected = List.of(bucketId(4));
    assertThat(ids(buckets("2025-03-02T11:59:00"))).isEqualTo(expected);
    assertThat(ids(buckets("2025-03-02T11:59"))).isEqualTo(expected);
    assertThat(ids(buckets("2025-03-02T11:59:00.000"))).isEqualTo(expected);
    assertThat(ids(buckets("2025-03-02T11:59:59.999"))).isEqualTo(expected);
    assertThat(ids(buckets("2025-03-02T11:59:00Z"))).isEqualTo(expected);
    assertThat(ids(buckets(Long.toString(epochSeconds)))).isEqualTo(expected);
    assertThat(ids(buckets(Long.toString(epochSeconds + 60)))).isEmpty();
  }

  @Test
  void buckets_sinceZeroEpochSeconds_listsEveryBucket() {
    assertThat(ids(buckets("0"))).hasSize(TestConfigs.BUCKETS);
  }

  @Test
  void buckets_withoutSinceTimestamp_returnsRequiredParameterMissing() {
    Response r = node.get("/v1/identity/buckets", mapper);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("clienterror");
    assertThat(r.message()).isEqualTo("Required Parameter Missing: since_timestamp");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "yesterday",
        "1740830400000",
        "-5",
        "2025-13-01T00:00:00",
        "2025-03-01",
        "2025-03-01 12:00:00",
        "10000-01-01T00:00:00",
        "2025-03-01T12:00:00+01:00",
        "1.5"
      })
  void buckets_unparseableSinceTimestamp_returnsInvalidMessage(String since) {
    Response r = buckets(since);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message())
        .isEqualTo("Invalid since_timestamp: must be ISO 8601 date-time or epoch seconds");
  }

  @Test
  void buckets_withoutMapperRole_isUnauthorized() {
    Response r = node.get("/v1/identity/buckets?since_timestamp=0", node.newApiKey(Role.GENERATOR));

    assertThat(r.code()).isEqualTo(401);
  }

  @Test
  void buckets_clientThatStopsReading_holdsTheStreamUntilItLeaves() {
    try (TestNode big = TestNode.start(Map.of("salt.buckets", "262144"))) {
      String key = big.newApiKey(Role.MAPPER);
      dev.veil.observability.RequestMetrics series =
          big.metrics().httpRequests("/v1/identity/buckets", "GET");
      try (dev.veil.http.testing.RawHttp http = dev.veil.http.testing.RawHttp.connect(big.port())) {
        String head =
            http.write(
                    "GET /v1/identity/buckets?since_timestamp=0 HTTP/1.1\r\nHost: x\r\n"
                        + "Authorization: Bearer "
                        + key
                        + "\r\n\r\n")
                .readResponse();
        assertThat(head).startsWith("HTTP/1.1 200").contains("transfer-encoding: chunked");
      }
      // About 15 MB of answer cannot fit in socket buffers: with backpressure the stream waits
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
  void buckets_unreadAnswers_holdAtMostTheBudget_othersWait_andEachIsClosedOnceStalled()
      throws Exception {
    int budget = 4 * BucketChunks.MAX_BYTES;
    try (TestNode big =
        TestNode.start(
            Map.of(
                "salt.buckets",
                "262144",
                "limits.stream-buffer-bytes",
                Integer.toString(budget),
                "http.stream-stall-timeout",
                "1s"))) {
      String key = big.newApiKey(Role.MAPPER);
      RequestMetrics series = big.metrics().httpRequests("/v1/identity/buckets", "GET");
      try (UnreadBuckets unread = UnreadBuckets.open(big.port(), key, 12)) {
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
      HttpResponse<InputStream> whole =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .build()
              .send(
                  HttpRequest.newBuilder(big.uri("/v1/identity/buckets?since_timestamp=0"))
                      .header("Authorization", Http.bearer(key))
                      .build(),
                  HttpResponse.BodyHandlers.ofInputStream());
      assertThat(bucketCount(whole.body())).isEqualTo(262_144);
    }
  }

  private static long gauge(TestNode node, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + " (\\d+)").matcher(node.metrics().scrape());
    assertThat(m.find()).as("metric %s", name).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static int bucketCount(InputStream answer) throws IOException {
    int count = 0;
    try (JsonParser json = new JsonFactory().createParser(answer)) {
      while (json.nextToken() != null) {
        if (json.currentToken() == JsonToken.FIELD_NAME && "bucket_id".equals(json.currentName())) {
          count++;
        }
      }
    }
    return count;
  }

  @Test
  void buckets_aMillionBuckets_areStreamedCompletely() throws Exception {
    try (TestNode big = TestNode.start(Map.of("salt.buckets", "1048576"))) {
      String key = big.newApiKey(Role.MAPPER);
      HttpRequest request =
          HttpRequest.newBuilder(big.uri("/v1/identity/buckets?since_timestamp=0"))
              .header("Authorization", Http.bearer(key))
              .build();
      HttpResponse<InputStream> response =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .build()
              .send(request, HttpResponse.BodyHandlers.ofInputStream());

      assertThat(response.statusCode()).isEqualTo(200);
      SaltSnapshot snapshot = big.services().salts().current();
      int count = 0;
      String lastId = null;
      try (JsonParser json = new JsonFactory().createParser(response.body())) {
        while (json.nextToken() != null) {
          if (json.currentToken() == JsonToken.FIELD_NAME
              && "bucket_id".equals(json.currentName())) {
            json.nextToken();
            lastId = json.getText();
            if (count == 0) {
              assertThat(lastId).isEqualTo(snapshot.bucketId(0));
            }
            count++;
          }
        }
      }
      assertThat(count).isEqualTo(1_048_576);
      assertThat(lastId).isEqualTo(snapshot.bucketId(1_048_575));
    }
  }
}
