package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.veil.testing.CliRun;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil map}'s retries against a fake server over a socket, so that the answers are exact: a
 * rate limit (429 with {@code Retry-After}, as {@code limits.rate-limit-per-second} answers) is
 * waited out; a server that has answered gets more attempts (a restart) than one that never has.
 */
class MapRetriesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADVERTISING_ID = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

  @TempDir Path dir;
  private HttpServer server;

  /**
   * Per identifier: the statuses to answer before it is mapped (a request holds one identifier).
   */
  private final Map<String, AtomicInteger> refusals = new ConcurrentHashMap<>();

  private int refusalStatus = 429;

  /** Per identifier: an answer to wait for before its first refusal. */
  private final Map<String, CountDownLatch> after = new ConcurrentHashMap<>();

  private final CountDownLatch firstMapped = new CountDownLatch(1);
  private final AtomicInteger requests = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/v1/identity/map", this::map);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void map(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    JsonNode request = JSON.readTree(exchange.getRequestBody());
    String first = request.get("email").get(0).asText();
    CountDownLatch wait = after.get(first);
    if (wait != null) {
      try {
        assertThat(wait.await(10, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    AtomicInteger left = refusals.get(first);
    if (left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      exchange.getResponseHeaders().add("Retry-After", "0");
      answer(
          exchange,
          refusalStatus,
          "{\"status\":\""
              + (refusalStatus == 429 ? "clienterror" : "unknown")
              + "\",\"message\":\"refused\"}");
      return;
    }
    ObjectNode body = JSON.createObjectNode();
    ArrayNode mapped = body.putArray("mapped");
    for (JsonNode email : request.get("email")) {
      mapped
          .addObject()
          .put("identifier", email.asText())
          .put("advertising_id", ADVERTISING_ID)
          .put("bucket_id", "b1");
    }
    ObjectNode envelope = JSON.createObjectNode().put("status", "success");
    envelope.set("body", body);
    answer(exchange, 200, JSON.writeValueAsString(envelope));
    firstMapped.countDown();
  }

  private static void answer(HttpExchange exchange, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private CliRun map(Path out, String... identifiers) throws IOException {
    Path in = dir.resolve("in.txt");
    Files.write(in, List.of(identifiers));
    return CliRun.of(
        "map",
        "--in",
        in.toString(),
        "--out",
        out.toString(),
        "--progress",
        "none",
        "--batch-size",
        "1",
        "--url",
        "http://127.0.0.1:" + server.getAddress().getPort(),
        "--api-key",
        "vk1.AAAAAAAAAAAA.secret");
  }

  private static String row(String identifier) {
    return identifier + "," + ADVERTISING_ID + ",b1";
  }

  @Test
  void rateLimitedRequests_areWaitedOut_beyondTheAttemptsOfAFailure() throws IOException {
    refusals.put(
        "a@example.com", new AtomicInteger(6)); // more than the four attempts a failure gets
    Path out = dir.resolve("out.csv");

    CliRun run = map(out, "a@example.com");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(requests.get()).isEqualTo(7);
    assertThat(Files.readAllLines(out))
        .containsExactly("identifier,advertising_id,bucket_id", row("a@example.com"));
  }

  @Test
  void aServerThatHasAnswered_isWaitedForLonger_asThroughARestart() throws IOException {
    refusalStatus = 503;
    refusals.put(
        "b@example.com", new AtomicInteger(5)); // a request under way when the server went away
    after.put("b@example.com", firstMapped);
    Path out = dir.resolve("out.csv");

    CliRun run = map(out, "a@example.com", "b@example.com");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(requests.get()).isEqualTo(7);
    assertThat(Files.readAllLines(out))
        .containsExactly(
            "identifier,advertising_id,bucket_id", row("a@example.com"), row("b@example.com"));
  }

  @Test
  void aServerThatNeverAnswered_isGivenUpAfterFourAttempts() throws IOException {
    refusalStatus = 503;
    refusals.put("a@example.com", new AtomicInteger(100));

    CliRun run = map(dir.resolve("out.csv"), "a@example.com");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("HTTP 503");
    assertThat(requests.get()).isEqualTo(4);
  }
}
