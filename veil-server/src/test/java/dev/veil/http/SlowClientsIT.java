package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.http.testing.RawHttp;
import dev.veil.http.testing.TestNode;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Clients that send a request a byte at a time lose their connection once the request's bound has
 * passed (docs/spec.md 11, {@code ListenerConnections}): a body, each of whose bytes resets the
 * idle timeout, within {@code http.body-timeout} of its head (408); a kept-alive connection's next
 * head within {@code http.idle-timeout} of the last answer, since the bytes of an unfinished head
 * do not reset the idle timeout.
 */
class SlowClientsIT {
  private static final Duration BYTE_EVERY = Duration.ofMillis(250);

  /** Generous: bound, plus a sweep period, a lingering close (2 s) and a slow machine. */
  private static final Duration MARGIN = Duration.ofSeconds(6);

  private static TestNode node;

  @BeforeAll
  static void start() {
    node =
        TestNode.start(
            Map.of(
                "http.header-timeout", "1s", "http.idle-timeout", "2s", "http.body-timeout", "2s"));
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @Test
  void aBodySentOneByteAtATime_isAnswered408_andTheConnectionClosed() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      http.write(
          "POST /v1/token/refresh HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              + "Content-Length: 100000\r\n\r\n");
      long start = System.nanoTime();
      try (Dribble dribble = Dribble.of(http, "{\"refresh_token\":\"" + "a".repeat(99_000))) {
        String response = http.readResponse();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(response)
            .startsWith("HTTP/1.1 408")
            .containsIgnoringCase("connection: close")
            .contains(
                "\"message\":\"Request timeout: the body did not arrive within 2s of the"
                    + " headers\"");
        assertThat(took)
            .as("after the body timeout, not before")
            .isGreaterThanOrEqualTo(Duration.ofMillis(1900))
            .isLessThan(Duration.ofSeconds(2).plus(MARGIN));
        assertThat(http.closedByServerWithin(MARGIN))
            .as("closed while the client still sends")
            .isTrue();
      }
    }
  }

  @Test
  void aBodyThatArrivesWithinTheBodyTimeout_isServed_evenInPieces() throws Exception {
    String body = "{\"refresh_token\":\"not-a-token\"}";
    try (RawHttp http = RawHttp.connect(node.port())) {
      http.write(
          "POST /v1/token/refresh HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              + "Content-Length: "
              + body.length()
              + "\r\n\r\n"
              + body.substring(0, 10));
      TimeUnit.MILLISECONDS.sleep(1200); // longer than the header timeout, within the body timeout
      String response = http.write(body.substring(10)).readResponse();

      assertThat(response).startsWith("HTTP/1.1 400").contains("\"status\":\"error\"");
    }
  }

  @Test
  void aLaterRequestsHeadSentOneByteAtATime_isClosedByTheIdleTimeout() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      assertThat(http.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
          .startsWith("HTTP/1.1 200");
      long start = System.nanoTime();
      try (Dribble dribble =
          Dribble.of(http, "GET /ops/healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(400))) {
        boolean closed = http.closedByServerWithin(Duration.ofSeconds(2).plus(MARGIN));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(closed).as("closed while the client still sends its head").isTrue();
        assertThat(took)
            .as("after the idle timeout, not before")
            .isGreaterThanOrEqualTo(Duration.ofMillis(1900));
      }
    }
  }

  @Test
  void aKeptAliveConnection_servesALaterRequestSentAfterTheHeaderTimeout() throws Exception {
    try (RawHttp http = RawHttp.connect(node.port())) {
      assertThat(http.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
          .startsWith("HTTP/1.1 200");
      TimeUnit.MILLISECONDS.sleep(1500); // past the header timeout, within the idle timeout

      assertThat(http.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
          .startsWith("HTTP/1.1 200");
    }
  }

  /**
   * Writes {@code text} one byte every {@link #BYTE_EVERY} on a thread of its own, until closed or
   * refused.
   */
  private static final class Dribble implements AutoCloseable {
    private final Thread writer;

    private Dribble(RawHttp http, byte[] bytes) {
      this.writer =
          new Thread(
              () -> {
                try {
                  for (byte b : bytes) {
                    http.write(new byte[] {b});
                    TimeUnit.MILLISECONDS.sleep(BYTE_EVERY.toMillis());
                  }
                } catch (UncheckedIOException | InterruptedException stopped) {
                  // the server closed the connection, or the test is over
                }
              },
              "dribble");
      writer.setDaemon(true);
      writer.start();
    }

    static Dribble of(RawHttp http, String text) {
      return new Dribble(http, text.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Override
    public void close() {
      writer.interrupt();
    }
  }
}
