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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil map} against a server that rate-limits its key (429 with {@code Retry-After}, as
 * {@code limits.rate-limit-per-second} answers): the run waits it out instead of failing. A fake
 * server over a socket, so that the number of 429 answers is exact.
 */
class MapRateLimitTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADVERTISING_ID = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

  @TempDir Path dir;
  private HttpServer server;
  /** 429 answers still to give before the next map request is answered. */
  private final AtomicInteger limited = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/v1/identity/map", this::map);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void map(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    JsonNode request = JSON.readTree(exchange.getRequestBody());
    if (limited.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      exchange.getResponseHeaders().add("Retry-After", "0");
      answer(exchange, 429, "{\"status\":\"clienterror\",\"message\":\"Rate limit exceeded, try again in a second\"}");
      return;
    }
    ObjectNode body = JSON.createObjectNode();
    ArrayNode mapped = body.putArray("mapped");
    for (JsonNode email : request.get("email")) {
      mapped.addObject().put("identifier", email.asText()).put("advertising_id", ADVERTISING_ID)
          .put("bucket_id", "b1");
    }
    ObjectNode envelope = JSON.createObjectNode().put("status", "success");
    envelope.set("body", body);
    answer(exchange, 200, JSON.writeValueAsString(envelope));
  }

  private static void answer(HttpExchange exchange, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Test
  void rateLimitedRequests_areWaitedOut_beyondTheAttemptsOfAFailure() throws IOException {
    Path in = dir.resolve("in.txt");
    Files.write(in, List.of("a@example.com", "b@example.com", "c@example.com"));
    Path out = dir.resolve("out.csv");
    limited.set(6); // more than the four attempts a failure gets

    CliRun run = CliRun.of("map", "--in", in.toString(), "--out", out.toString(), "--progress", "none", "--url",
        "http://127.0.0.1:" + server.getAddress().getPort(), "--api-key", "vk1.AAAAAAAAAAAA.secret");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(requests.get()).isEqualTo(7);
    assertThat(Files.readAllLines(out)).containsExactly(OutputFiles.HEADER.strip(),
        "a@example.com," + ADVERTISING_ID + ",b1", "b@example.com," + ADVERTISING_ID + ",b1",
        "c@example.com," + ADVERTISING_ID + ",b1");
  }
}
