package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
import dev.veil.http.testing.RawHttp;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.net.http.HttpRequest;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CorsIT {
  private static TestNode node;

  @BeforeAll
  static void start() {
    node = TestNode.start();
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static Response preflight(TestNode target, String path, String origin) {
    return target.send(
        HttpRequest.newBuilder(target.uri(path))
            .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "content-type,x-uid2-client-version")
            .build());
  }

  @Test
  void preflight_onRefresh_allowsAnyOriginMethodsAndHeaders() {
    Response r = preflight(node, "/v1/token/refresh", "https://publisher.example");

    assertThat(r.code()).isEqualTo(204);
    assertThat(r.header("Access-Control-Allow-Origin")).isEqualTo("*");
    assertThat(r.header("Access-Control-Allow-Methods")).isEqualTo("GET, POST, OPTIONS");
    assertThat(r.header("Access-Control-Allow-Headers"))
        .isEqualTo("Content-Type, X-UID2-Client-Version");
    assertThat(r.header("Access-Control-Max-Age")).isEqualTo("86400");
  }

  @Test
  void refresh_fromABrowser_carriesAllowOriginOnSuccessAndOnErrors() {
    Response error =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/token/refresh?refresh_token=x"))
                .header("Origin", "https://publisher.example")
                .build());
    String token =
        node.get("/v1/token/generate?email=a%40example.com", node.newApiKey(Role.GENERATOR))
            .bodyNode()
            .path("refresh_token")
            .asText();
    Response ok =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/token/refresh"))
                .header("Origin", "https://publisher.example")
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("{\"refresh_token\":\"" + token + "\"}"))
                .build());

    assertThat(error.code()).isEqualTo(400);
    assertThat(error.header("Access-Control-Allow-Origin")).isEqualTo("*");
    assertThat(ok.code()).isEqualTo(200);
    assertThat(ok.header("Access-Control-Allow-Origin")).isEqualTo("*");
  }

  @Test
  void configuredOrigins_areEchoedAndOthersGetNoCorsHeaders() {
    try (TestNode restricted =
        TestNode.start(Map.of("cors.allowed-origins", "https://a.example,https://b.example"))) {
      Response allowed = preflight(restricted, "/v1/token/refresh", "https://b.example");
      Response refused = preflight(restricted, "/v1/token/refresh", "https://evil.example");

      assertThat(allowed.header("Access-Control-Allow-Origin")).isEqualTo("https://b.example");
      assertThat(allowed.header("Vary")).isEqualTo("Origin");
      assertThat(refused.code()).isEqualTo(204);
      assertThat(refused.header("Access-Control-Allow-Origin")).isNull();
      assertThat(refused.header("Access-Control-Allow-Methods")).isNull();
    }
  }

  @Test
  void configuredOrigins_everyAnswerVariesOnOrigin_soCachesKeepThemApart() {
    try (TestNode restricted =
        TestNode.start(Map.of("cors.allowed-origins", "https://a.example"))) {
      Response refused = preflight(restricted, "/v1/token/refresh", "https://evil.example");
      Response withoutOrigin = restricted.get("/v1/token/refresh?refresh_token=x", null);
      Response otherOrigin =
          restricted.send(
              HttpRequest.newBuilder(restricted.uri("/v1/token/refresh?refresh_token=x"))
                  .header("Origin", "https://evil.example")
                  .build());

      assertThat(refused.header("Vary")).isEqualTo("Origin");
      assertThat(withoutOrigin.header("Vary")).isEqualTo("Origin");
      assertThat(otherOrigin.header("Vary")).isEqualTo("Origin");
      assertThat(otherOrigin.header("Access-Control-Allow-Origin")).isNull();
    }
  }

  @Test
  void options_onRefresh_namesTheAllowedMethods_alsoWithoutOrigin() {
    Response withOrigin = preflight(node, "/v1/token/refresh", "https://publisher.example");
    Response withoutOrigin =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/token/refresh"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .build());

    assertThat(withOrigin.header("Allow")).isEqualTo("GET, POST, OPTIONS");
    assertThat(withoutOrigin.code()).isEqualTo(204);
    assertThat(withoutOrigin.header("Allow")).isEqualTo("GET, POST, OPTIONS");
    assertThat(withoutOrigin.header("Access-Control-Allow-Methods")).isNull();
  }

  @Test
  void otherRoutes_haveNoCorsAndRefusePreflight() {
    Response generate =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/token/generate?email=a%40b.com"))
                .header("Origin", "https://publisher.example")
                .build());
    Response options = preflight(node, "/v1/token/generate", "https://publisher.example");

    assertThat(generate.header("Access-Control-Allow-Origin")).isNull();
    assertThat(options.code()).isEqualTo(405);
  }

  /**
   * A browser SDK with a wrong base URL must be able to read the 404, or it sees only a network
   * error.
   */
  @Test
  void unknownPaths_fromABrowser_carryAllowOrigin_soTheSdkReadsThe404() {
    for (String path :
        new String[] {"/v1/token/refreshx", "/api/v1/token/refresh", "/v3/token/refresh"}) {
      Response r =
          node.send(
              HttpRequest.newBuilder(node.uri(path))
                  .header("Origin", "https://publisher.example")
                  .header("Content-Type", "text/plain")
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build());

      assertThat(r.code()).as(path).isEqualTo(404);
      assertThat(r.header("Access-Control-Allow-Origin")).as(path).isEqualTo("*");
    }
  }

  @Test
  void unknownPaths_withConfiguredOrigins_echoOnlyAnAllowedOne() {
    try (TestNode restricted =
        TestNode.start(Map.of("cors.allowed-origins", "https://a.example"))) {
      Response allowed =
          restricted.send(
              HttpRequest.newBuilder(restricted.uri("/api/v1/token/refresh"))
                  .header("Origin", "https://a.example")
                  .build());
      Response refused =
          restricted.send(
              HttpRequest.newBuilder(restricted.uri("/api/v1/token/refresh"))
                  .header("Origin", "https://evil.example")
                  .build());

      assertThat(allowed.code()).isEqualTo(404);
      assertThat(allowed.header("Access-Control-Allow-Origin")).isEqualTo("https://a.example");
      assertThat(allowed.header("Vary")).isEqualTo("Origin");
      assertThat(refused.code()).isEqualTo(404);
      assertThat(refused.header("Access-Control-Allow-Origin")).isNull();
    }
  }

  @Test
  void refusalsOfTheRefreshRoute_carryAllowOrigin_wrongMethodTooLargeAndRejectedHead() {
    Response put =
        node.send(
            HttpRequest.newBuilder(node.uri("/v1/token/refresh"))
                .header("Origin", "https://publisher.example")
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build());
    String tooLarge;
    try (RawHttp http = RawHttp.connect(node.port())) {
      tooLarge =
          http.write(
                  "POST /v1/token/refresh HTTP/1.1\r\n"
                      + "Host: localhost\r\n"
                      + "Origin: https://publisher.example\r\n"
                      + "Content-Type: text/plain\r\n"
                      + "Content-Length: "
                      + (2 << 20)
                      + "\r\n\r\n")
              .readResponse();
    }
    String headers;
    try (RawHttp http = RawHttp.connect(node.port())) {
      headers =
          http.write(
                  "GET /v1/token/refresh?refresh_token=x HTTP/1.1\r\nHost: localhost\r\n"
                      + "Origin: https://publisher.example\r\nX-Filler: "
                      + "a".repeat(17 * 1024)
                      + "\r\n\r\n")
              .readResponse();
    }

    assertThat(put.code()).isEqualTo(405);
    assertThat(put.header("Access-Control-Allow-Origin")).isEqualTo("*");
    assertThat(tooLarge)
        .startsWith("HTTP/1.1 413")
        .containsIgnoringCase("access-control-allow-origin: *");
    assertThat(headers)
        .matches("(?s)HTTP/1\\.[01] 431 .*")
        .containsIgnoringCase("access-control-allow-origin: *");
  }

  @Test
  void ambiguousFraming_fromABrowser_carriesAllowOrigin() {
    String answer;
    try (RawHttp http = RawHttp.connect(node.port())) {
      answer =
          http.write(
                  "POST /v1/token/refresh HTTP/1.1\r\n"
                      + "Host: localhost\r\n"
                      + "Origin: https://publisher.example\r\n"
                      + "Transfer-Encoding: gzip\r\n\r\n")
              .readResponse();
    }

    assertThat(answer)
        .startsWith("HTTP/1.1 400")
        .containsIgnoringCase("access-control-allow-origin: *");
  }
}
