package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.http.testing.RawHttp;
import dev.veil.http.testing.TestNode;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Near the connection limit ({@code limits.max-connections}) a new client is let in by closing the
 * connection that has waited longest without completing a request ({@code
 * dev.veil.net.ConnectionLimit}: above the high-water mark, max less an eighth and at least one).
 */
class ConnectionSheddingIT {
  private static final Duration SOON = Duration.ofSeconds(5);
  private static final String SLOW_BODY =
      "POST /v1/token/refresh HTTP/1.1\r\nHost: x\r\n"
          + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{";

  @Test
  void atTheLimit_aNewClientIsServed_andTheConnectionWaitingLongestIsShed() {
    try (TestNode node = TestNode.start(Map.of("limits.max-connections", "4"));
        RawHttp slowBody = RawHttp.connect(node.port());
        RawHttp slowHead = RawHttp.connect(node.port());
        RawHttp idle = RawHttp.connect(node.port())) {
      slowBody.write(SLOW_BODY);
      slowHead.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n");
      assertThat(idle.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
          .startsWith("HTTP/1.1 200");

      try (RawHttp client = RawHttp.connect(node.port())) {
        assertThat(client.write("GET /ops/readyz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
            .startsWith("HTTP/1.1 200");
      }

      assertThat(slowBody.closedByServerWithin(SOON)).as("waiting longest: shed").isTrue();
      assertThat(slowHead.closedByServerWithin(Duration.ofMillis(500)))
          .as("waiting less long: kept")
          .isFalse();
      assertThat(idle.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
          .as("idle since its answer, more recently: kept")
          .startsWith("HTTP/1.1 200");
      assertThat(node.metrics().scrape())
          .contains("veil_connections_shed_total 1", "veil_connections_max 4");
    }
  }
}
