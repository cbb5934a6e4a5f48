package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
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
 * What the HTTP decoder lets through (docs/spec.md 11): a request line whose protocol is not {@code
 * HTTP/1.1} or {@code HTTP/1.0}, and a chunk size too large to be read, are malformed HTTP: 400
 * with the JSON envelope over HTTP/1.1, counted, and the connection closed. A chunk size with
 * leading zeros or an extension is read as before.
 */
class HttpFramingIT {
  /** 25 bytes, 0x19. */
  private static final String BODY = "{\"email\":\"a@example.com\"}";

  private static final Duration SOON = Duration.ofSeconds(5);
  private static TestNode node;
  private static String generator;

  @BeforeAll
  static void start() {
    node = TestNode.start();
    generator = node.newApiKey(Role.GENERATOR);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "FOO/1.1",
        "http/1.1",
        "HTTP/1.2",
        "HTTP/2.0",
        "HTTP/1.10",
        "HTTP/0.9",
        "HTTP/3.0"
      })
  void anUnknownHttpVersion_isRefusedWith400OverHttp11_countedAndClosed(String version) {
    RequestMetrics invalid = node.metrics().httpRequests("invalid", "other");
    long before = invalid.count(400);
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write("GET /ops/healthz " + version + "\r\nHost: x\r\n\r\n").readResponse();

      assertThat(response)
          .startsWith("HTTP/1.1 400 ")
          .doesNotContain(version)
          .contains(
              "connection: close",
              "\"status\":\"clienterror\"",
              "\"message\":\"Malformed HTTP request: the version must be HTTP/1.1 or HTTP/1.0\"");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
    assertThat(invalid.count(400)).isEqualTo(before + 1);
  }

  @Test
  void theHttp2Preface_isRefusedWith400_andClosed() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response = http.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").readResponse();

      assertThat(response)
          .startsWith("HTTP/1.1 400 ")
          .contains("the version must be HTTP/1.1 or HTTP/1.0");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"HTTP/1.1", "HTTP/1.0"})
  void http11And10_areServed(String version) {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write("GET /ops/healthz " + version + "\r\nHost: x\r\n\r\n").readResponse();

      assertThat(response).startsWith(version + " 200 ");
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "1000000000000000019",
        "100000019",
        "80000019",
        "100000000",
        "ffffffffffffffffffffffff19"
      })
  void aChunkSizeTooLargeToRead_isRefusedWith400_countedAndClosed(String size) {
    RequestMetrics generate = node.metrics().httpRequests("/v1/token/generate", "POST");
    long before = generate.count(400);
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write(chunkedHead() + size + "\r\n" + BODY + "\r\n0\r\n\r\n").readResponse();

      assertThat(response)
          .startsWith("HTTP/1.1 400 ")
          .contains(
              "connection: close",
              "\"status\":\"clienterror\"",
              "\"message\":\"Malformed HTTP request: chunk size too large\"");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
    assertThat(generate.count(400)).isEqualTo(before + 1);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {"19", "0000000019", "000000000000000000000000000019", "19;x=y", "19 ;x=y", "  19"})
  void aChunkSizeWithLeadingZerosOrAnExtension_isRead(String size) {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write(chunkedHead() + size + "\r\n" + BODY + "\r\n0\r\n\r\n").readResponse();

      assertThat(response).startsWith("HTTP/1.1 200 ").contains("\"status\":\"success\"");
    }
  }

  @Test
  void aBodyOfManyChunks_eachSizeLineInPieces_isRead() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      http.write(chunkedHead());
      for (int i = 0; i < BODY.length(); i += 4) {
        String piece = BODY.substring(i, Math.min(BODY.length(), i + 4));
        String sizeLine = "0000" + Integer.toHexString(piece.length()) + ";n=" + i + "\r\n";
        http.write(sizeLine.substring(0, 3));
        pause();
        http.write(sizeLine.substring(3) + piece.substring(0, 1));
        pause();
        http.write(piece.substring(1) + "\r");
        pause();
        http.write("\n");
      }
      String response = http.write("0\r\n\r\n").readResponse();

      assertThat(response).startsWith("HTTP/1.1 200 ").contains("\"status\":\"success\"");
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {"zz\r\n" + BODY, "19\r\n" + BODY + "XY", "19\n" + BODY + "\r\n", ";x\r\n" + BODY})
  void aChunkedBodyWithBrokenFraming_isRefusedWith400_andClosed(String framing) {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response = http.write(chunkedHead() + framing + "\r\n0\r\n\r\n").readResponse();

      assertThat(response)
          .startsWith("HTTP/1.1 400 ")
          .contains(
              "connection: close",
              "\"status\":\"clienterror\"",
              "\"message\":\"Malformed HTTP request: invalid chunked body\"");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void aTooLargeChunkSize_afterGoodChunks_isRefused() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write(
                  chunkedHead()
                      + "5\r\n"
                      + BODY.substring(0, 5)
                      + "\r\n"
                      + "10000000000000014\r\n"
                      + BODY.substring(5)
                      + "\r\n0\r\n\r\n")
              .readResponse();

      assertThat(response)
          .startsWith("HTTP/1.1 400 ")
          .contains("Malformed HTTP request: chunk size too large");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  private static String chunkedHead() {
    return "POST /v1/token/generate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
        + generator
        + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  }

  /** Lets the bytes written so far arrive on their own, so the server reads them as one segment. */
  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
