package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.testing.AdminCli;
import dev.veil.testing.Await;
import dev.veil.testing.Http;
import dev.veil.testing.ServerProcess;
import dev.veil.testing.UnreadBuckets;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that ask for the buckets answer and never read it (docs/spec.md 1.8), half of them in
 * v1's form and half in v2's (sealed chunk by chunk): however many there are, the node holds at
 * most one chunk per connection and at most {@code limits.stream-buffer-bytes} for all of them, so
 * a small heap outlives them and the node keeps serving. A real {@code veil serve} in a JVM that
 * exits on OutOfMemoryError, as {@code deploy/systemd} runs it.
 */
class SlowReadersIT {
  private static final int BUCKETS =
      262_144; // an answer of about 17 MB, far more than socket buffers take
  private static final int READERS = 400;
  private static final int CHUNK = 32 * 1024;
  private static final long NONCE = 77;
  private static final Pattern BUFFERED =
      Pattern.compile("(?m)^veil_http_stream_buffered_bytes (\\d+)");

  @TempDir Path dataDir;

  @Test
  void fourHundredUnreadBucketsAnswers_onA128MiBHeap_leaveTheNodeAliveReadyAndServing()
      throws Exception {
    // Timeouts far beyond the test, so that nothing is closed while it runs: what must keep the
    // heap
    // is the bound on what a stream holds, not a timeout.
    try (ServerProcess server =
        ServerProcess.start(
            dataDir,
            List.of("-Xmx128m", "-XX:+ExitOnOutOfMemoryError"),
            "--set",
            "salt.buckets=" + BUCKETS,
            "--set",
            "http.idle-timeout=10m",
            "--set",
            "http.header-timeout=10s")) {
      String adminKey = Files.readString(dataDir.resolve("admin.key")).strip();
      String key =
          AdminCli.createClient(server.grpcPort(), adminKey, "partner", "MAPPER,GENERATOR");
      AdminCli.Result rotated =
          AdminCli.run(
              server.grpcPort(), adminKey, "client", "rotate-secret", "2", "--secret-only");
      assertThat(rotated.exitCode()).as(rotated.out()).isZero();
      EnvelopeSecret secret =
          EnvelopeSecret.fromBase64(rotated.out().lines().findFirst().orElseThrow().strip());
      Http http = new Http(server.baseUrl());

      try (UnreadBuckets unread = UnreadBuckets.open(server.httpPort(), key, READERS / 2);
          UnreadBuckets unreadV2 =
              UnreadBuckets.open(
                  server.httpPort(), v2Request(key, sealedSince(secret, NONCE)), READERS / 2)) {
        // Every stream has pushed into its socket what the kernel takes and waits with one chunk.
        Await.until(
            Duration.ofMinutes(2),
            "every stream to wait with one chunk",
            () -> buffered(server, http) == (long) READERS * CHUNK);

        assertThat(http.get("/ops/readyz", null).code()).isEqualTo(200);
        assertThat(wholeAnswer(http, key))
            .as("a client that reads gets every bucket")
            .isEqualTo(BUCKETS);
        assertThat(wholeV2Answer(http, key, secret))
            .as("a v2 client that reads gets every bucket")
            .isEqualTo(BUCKETS);
        assertThat(http.get("/v1/token/generate?email=good%40example.com", key).status())
            .isEqualTo("success");
        assertThat(server.alive()).isTrue();
      }
      assertThat(server.output()).noneMatch(line -> line.contains("OutOfMemoryError"));
    }
  }

  /** Bytes held by streamed answers now, from the node's metrics; -1 if it has no such metric. */
  private static long buffered(ServerProcess server, Http http) {
    String metrics;
    try {
      metrics = http.get("/metrics", null).body();
    } catch (UncheckedIOException e) {
      assertThat(server.alive())
          .as("the node is running; its last lines:\n%s", tail(server))
          .isTrue();
      throw e;
    }
    Matcher m = BUFFERED.matcher(metrics);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private static int wholeAnswer(Http http, String key) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(http.uri("/v1/identity/buckets?since_timestamp=1"))
            .header("Authorization", Http.bearer(key))
            .timeout(Duration.ofSeconds(60))
            .build();
    HttpResponse<InputStream> response =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(request, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(response.statusCode()).isEqualTo(200);
    return bucketCount(response.body());
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

  /** The v2 buckets body for {@code since_timestamp} 1, sealed now with {@code secret}. */
  private static String sealedSince(EnvelopeSecret secret, long nonce) {
    return new String(
        V2Envelope.BASE64.sealRequest(
            "{\"since_timestamp\":\"1\"}".getBytes(StandardCharsets.UTF_8),
            nonce,
            secret,
            Instant.now(),
            NonceSource.secure()),
        StandardCharsets.US_ASCII);
  }

  private static byte[] v2Request(String key, String body) {
    return ("POST /v2/identity/buckets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + key
            + "\r\nContent-Length: "
            + body.length()
            + "\r\n\r\n"
            + body)
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static int wholeV2Answer(Http http, String key, EnvelopeSecret secret)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(http.uri("/v2/identity/buckets"))
            .header("Authorization", Http.bearer(key))
            .POST(HttpRequest.BodyPublishers.ofString(sealedSince(secret, NONCE + 1)))
            .timeout(Duration.ofSeconds(60))
            .build();
    HttpResponse<byte[]> response =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .build()
            .send(request, HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).isEqualTo(200);
    byte[] json = V2Envelope.BASE64.openResponse(response.body(), secret, NONCE + 1).payloadBytes();
    return bucketCount(new ByteArrayInputStream(json));
  }

  private static String tail(ServerProcess server) {
    List<String> lines = server.output();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
  }
}
