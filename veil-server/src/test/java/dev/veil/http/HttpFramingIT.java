package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.http.testing.RawHttp;
import dev.veil.http.testing.TestNode;
import dev.veil.observability.RequestMetrics;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the HTTP decoder lets through (SPEC 11): a request line whose protocol is not {@code
 * HTTP/1.1} or {@code HTTP/1.0} is malformed HTTP: 400 with the JSON envelope over HTTP/1.1,
 * counted, and the connection closed.
 */
class HttpFramingIT {
  private static final Duration SOON = Duration.ofSeconds(5);
  private static TestNode node;

  @BeforeAll
  static void start() {
    node = TestNode.start();
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"FOO/1.1", "http/1.1", "HTTP/1.2", "HTTP/2.0", "HTTP/1.10", "HTTP/0.9", "HTTP/3.0"})
  void anUnknownHttpVersion_isRefusedWith400OverHttp11_countedAndClosed(String version) {
    RequestMetrics invalid = node.metrics().httpRequests("invalid", "other");
    long before = invalid.count(400);
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response = http.write("GET /ops/healthz " + version + "\r\nHost: x\r\n\r\n").readResponse();

      assertThat(response).startsWith("HTTP/1.1 400 ").doesNotContain(version)
          .contains("connection: close", "\"status\":\"clienterror\"",
              "\"message\":\"Malformed HTTP request: the version must be HTTP/1.1 or HTTP/1.0\"");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
    assertThat(invalid.count(400)).isEqualTo(before + 1);
  }

  @Test
  void theHttp2Preface_isRefusedWith400_andClosed() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response = http.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").readResponse();

      assertThat(response).startsWith("HTTP/1.1 400 ").contains("the version must be HTTP/1.1 or HTTP/1.0");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"HTTP/1.1", "HTTP/1.0"})
  void http11And10_areServed(String version) {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response = http.write("GET /ops/healthz " + version + "\r\nHost: x\r\n\r\n").readResponse();

      assertThat(response).startsWith(version + " 200 ");
    }
  }
}
