package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
import dev.veil.http.testing.RawHttp;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LimitsIT {
  private static final int MIB = 1 << 20;

  /** Longer than the header timeout and a lingering close, shorter than the idle timeout. */
  private static final java.time.Duration SOON = java.time.Duration.ofSeconds(5);

  private static TestNode node;
  private static String mapper;

  @BeforeAll
  static void start() {
    // The idle timeout well above the others, so that a close the test expects sooner is not the
    // idle one.
    node = TestNode.start(Map.of("http.header-timeout", "1s", "http.idle-timeout", "9s"));
    mapper = node.newApiKey(Role.MAPPER);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static String postHead(String path, String extraHeaders) {
    return "POST "
        + path
        + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
        + mapper
        + "\r\n"
        + extraHeaders
        + "\r\n";
  }

  @Test
  void body_declaredOverOneMebibyte_isRefusedWith413BeforeTheBodyIsSent() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write(postHead("/v1/identity/map", "Content-Length: " + (MIB + 1) + "\r\n"))
              .readResponse();

      assertThat(response).startsWith("HTTP/1.1 413");
      assertThat(response)
          .contains("\"status\":\"clienterror\"", "Request body too large: at most 1048576 bytes");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void body_chunkedPastTheLimit_isRefusedWith413AsSoonAsTheLimitIsCrossed() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      http.write(postHead("/v1/identity/map", "Transfer-Encoding: chunked\r\n"));
      byte[] chunk = new byte[MIB + 1];
      java.util.Arrays.fill(chunk, (byte) ' ');
      http.write(Integer.toHexString(chunk.length) + "\r\n").write(chunk).write("\r\n");

      String response = http.readResponse();

      assertThat(response).startsWith("HTTP/1.1 413");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void body_withExpectContinueOverTheLimit_isRefusedWithoutAsking100Continue() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write(
                  postHead(
                      "/v1/identity/map",
                      "Content-Length: " + (2 * MIB) + "\r\nExpect: 100-continue\r\n"))
              .readResponse();

      assertThat(response).startsWith("HTTP/1.1 413");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void body_withExpectContinueWithinTheLimit_isInvitedAndAnswered() {
    String body = "{\"email\":[\"a@example.com\"]}";
    try (RawHttp http = RawHttp.connect(node.port())) {
      String interim =
          http.write(
                  postHead(
                      "/v1/identity/map",
                      "Content-Length: " + body.length() + "\r\nExpect: 100-continue\r\n"))
              .readResponse();
      assertThat(interim).startsWith("HTTP/1.1 100");

      String response = http.write(body).readResponse();

      assertThat(response).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void body_ofExactlyOneMebibyte_isAccepted() {
    String json = "{\"email\":[\"a@example.com\"]}";
    String padded = json + " ".repeat(MIB - json.length());

    Response r = node.post("/v1/identity/map", mapper, padded);

    assertThat(r.code()).isEqualTo(200);
  }

  @Test
  void body_sentToARouteThatRefusesTheCallerFirst_isNotRead() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write("POST /v1/optout HTTP/1.1\r\nHost: x\r\nContent-Length: 500000\r\n\r\n")
              .readResponse();

      assertThat(response).startsWith("HTTP/1.1 401").contains("connection: close");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void refusedRequestsBody_isDropped_thenTheConnectionCloses_servingNothingPipelined() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write(
                  "POST /v1/identity/map HTTP/1.1\r\n"
                      + "Host: x\r\n"
                      + "Authorization: Bearer nope\r\n"
                      + "Content-Length: 5\r\n\r\n"
                      + "{\"a\":GET /ops/readyz HTTP/1.1\r\n"
                      + "Host: x\r\n\r\n")
              .readResponse();

      assertThat(response)
          .startsWith("HTTP/1.1 401")
          .contains("connection: close", "Invalid API key");
      assertThat(http.closedByServerWithin(SOON))
          .as("closed, without an answer to the GET")
          .isTrue();
    }
  }

  @Test
  void anHttp11RequestWithoutHost_isRefusedWith400_andTheConnectionClosed() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response = http.write("GET /ops/healthz HTTP/1.1\r\n\r\n").readResponse();

      assertThat(response)
          .startsWith("HTTP/1.1 400")
          .contains("Malformed HTTP request: no Host header");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void anHttp10RequestWithoutHost_isServed() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response = http.write("GET /ops/healthz HTTP/1.0\r\n\r\n").readResponse();

      assertThat(response).startsWith("HTTP/1.0 200");
    }
  }

  @Test
  void aTransferCodingOtherThanChunkedAlone_isRefused_andNothingBehindItIsServed() {
    for (String coding : new String[] {"gzip", "xchunked", "identity"}) {
      try (RawHttp http = RawHttp.connect(node.port())) {
        String response =
            http.write(
                    postHead("/v1/identity/map", "Transfer-Encoding: " + coding + "\r\n")
                        + "GET /ops/readyz HTTP/1.1\r\nHost: x\r\n\r\n")
                .readResponse();

        assertThat(response)
            .as(coding)
            .startsWith("HTTP/1.1 400")
            .contains("Malformed HTTP request: Transfer-Encoding must be chunked alone");
        assertThat(http.closedByServerWithin(SOON)).as(coding).isTrue();
      }
    }
  }

  @Test
  void aChunkedBody_evenWithAContentLengthBeside_isReadByItsChunks_andTheConnectionThenCloses() {
    String json = "{\"email\":[\"a@example.com\"]}";
    for (String length : new String[] {"", "Content-Length: 5\r\n"}) {
      try (RawHttp http = RawHttp.connect(node.port())) {
        String response =
            http.write(
                    postHead("/v1/identity/map", length + "Transfer-Encoding: chunked\r\n")
                        + Integer.toHexString(json.length())
                        + "\r\n"
                        + json
                        + "\r\n0\r\n\r\n"
                        + "GET /ops/readyz HTTP/1.1\r\nHost: x\r\n\r\n")
                .readResponse();

        assertThat(response)
            .as(length)
            .startsWith("HTTP/1.1 200")
            .contains("connection: close", "a@example.com");
        assertThat(http.closedByServerWithin(SOON)).as(length).isTrue();
      }
    }
  }

  @Test
  void headers_over16KiB_areRefusedWith431() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write(
                  "GET /ops/healthz HTTP/1.1\r\nHost: x\r\nX-Big: "
                      + "a".repeat(17 * 1024)
                      + "\r\n\r\n")
              .readResponse();

      assertThat(response).matches("(?s)HTTP/1\\.[01] 431 .*");
      assertThat(response).contains("\"status\":\"clienterror\"");
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void requestLine_over16KiB_isRefusedWith414() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      String response =
          http.write(
                  "GET /v1/identity/map?email="
                      + "a".repeat(17 * 1024)
                      + " HTTP/1.1\r\nHost: x\r\n\r\n")
              .readResponse();

      assertThat(response).matches("(?s)HTTP/1\\.[01] 414 .*");
      assertThat(response).contains("\"message\":\"Request line too long\"");
    }
  }

  @Test
  void connection_withoutCompleteHeadersWithinTheHeaderTimeout_isClosed() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      http.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n");

      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void connection_sendingNothing_isClosed() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      assertThat(http.closedByServerWithin(SOON)).isTrue();
    }
  }

  @Test
  void connection_keptAliveAndIdle_isClosedAfterTheIdleTimeout() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      assertThat(http.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
          .startsWith("HTTP/1.1 200");
      assertThat(http.write("GET /ops/healthz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
          .startsWith("HTTP/1.1 200");

      assertThat(http.closedByServerWithin(SOON)).as("kept alive").isFalse();
      assertThat(http.closedByServerWithin(java.time.Duration.ofSeconds(15))).isTrue();
    }
  }

  @Test
  void query_withBrokenPercentEncodingOrInvalidUtf8_isClientError() {
    for (String query :
        new String[] {"email=%zz", "email=a%", "email=%C3%28", "email=%ED%A0%80", "token=%FF"}) {
      try (RawHttp http = RawHttp.connect(node.port())) {
        String response =
            http.write(
                    "GET /v1/identity/map?"
                        + query
                        + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                        + mapper
                        + "\r\n\r\n")
                .readResponse();
        assertThat(response)
            .as(query)
            .startsWith("HTTP/1.1 400")
            .contains("Malformed query string: invalid percent-encoding or UTF-8");
      }
    }
  }

  @Test
  void query_withRawNonAsciiBytes_isNeverAServerError() {
    try (RawHttp http = RawHttp.connect(node.port())) {
      byte[] head =
          ("GET /v1/identity/map?email=\u00c3( HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + mapper
                  + "\r\n\r\n")
              .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
      String response = http.write(head).readResponse();

      assertThat(response).startsWith("HTTP/1.1 400");
    }
  }

  @Test
  void rateLimit_whenExceeded_returns429UntilTheNextSecond() {
    try (TestNode limited = TestNode.start(Map.of("limits.rate-limit-per-second", "2"))) {
      String key = limited.newApiKey(Role.MAPPER);
      String other = limited.newApiKey(Role.MAPPER);
      String path = "/v1/identity/map?email=a%40example.com";

      assertThat(limited.get(path, key).code()).isEqualTo(200);
      assertThat(limited.get(path, key).code()).isEqualTo(200);
      Response refused = limited.get(path, key);
      assertThat(refused.code()).isEqualTo(429);
      assertThat(refused.status()).isEqualTo("clienterror");
      assertThat(refused.header("Retry-After")).isEqualTo("1");
      assertThat(limited.get(path, other).code()).isEqualTo(200);

      limited.clock().advance(Duration.ofSeconds(1));
      assertThat(limited.get(path, key).code()).isEqualTo(200);
    }
  }

  @Test
  void batchSizeLimit_isConfigurable() {
    try (TestNode small = TestNode.start(Map.of("limits.max-batch-size", "2"))) {
      Response r =
          small.post(
              "/v1/identity/map",
              small.newApiKey(Role.MAPPER),
              "{\"email\":[\"a@b.com\",\"c@d.com\",\"e@f.com\"]}");

      assertThat(r.code()).isEqualTo(400);
      assertThat(r.message()).isEqualTo("Too many identifiers: at most 2 per request");
    }
  }
}
