package dev.veil.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.client.Role;
import dev.veil.http.testing.RawHttp;
import dev.veil.server.VeilServer;
import dev.veil.testing.Http;
import dev.veil.testing.Http.Response;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.TestConfigs;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The demo site over HTTP (no browser): the page, the publisher's server side, the bidder. */
class DemoSiteIT {
  private static VeilServer server;
  private static Http demo;
  private static Http api;

  @BeforeAll
  static void start() {
    server =
        VeilServer.start(
            TestConfigs.config("demo.enabled", "true", "demo.port", "0"),
            Clock.systemUTC(),
            new InMemoryStores(),
            DemoSite::start);
    demo =
        new Http(
            "http://127.0.0.1:" + server.demoPort().orElseThrow(),
            java.net.http.HttpClient.Version.HTTP_1_1);
    api = new Http("http://127.0.0.1:" + server.httpPort());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void page_namesTheApiOrigin_underAStrictPolicy() {
    Response r = demo.get("/", null);
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.header("Content-Type")).isEqualTo("text/html; charset=utf-8");
    assertThat(r.header("Cache-Control")).isEqualTo("no-store");
    String apiOrigin = "http://127.0.0.1:" + server.httpPort();
    assertThat(r.body()).contains("<meta name=\"veil-base-url\" content=\"" + apiOrigin + "\">");
    assertThat(r.header("Content-Security-Policy"))
        .startsWith("default-src 'none'; script-src 'self';")
        .contains("connect-src 'self' " + apiOrigin + ";", "require-trusted-types-for 'script'");
    assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
  }

  @Test
  void page_addressesTheApiByTheHostNameTheBrowserUsed() {
    try (RawHttp raw = RawHttp.connect(server.demoPort().orElseThrow())) {
      String answer =
          raw.write("GET / HTTP/1.1\r\nHost: news.pub.test:8081\r\nConnection: close\r\n\r\n")
              .readResponse();
      assertThat(answer).contains("content=\"http://news.pub.test:" + server.httpPort() + "\"");
    }
    try (RawHttp raw = RawHttp.connect(server.demoPort().orElseThrow())) {
      String answer =
          raw.write("GET / HTTP/1.1\r\nHost: \"><script>x</script>\r\nConnection: close\r\n\r\n")
              .readResponse();
      assertThat(answer)
          .doesNotContain("<script>x")
          .contains("content=\"http://127.0.0.1:" + server.httpPort() + "\"");
    }
  }

  @Test
  void assets_areServedWithTheirTypes() {
    assertThat(demo.get("/demo.js", null).header("Content-Type"))
        .isEqualTo("text/javascript; charset=utf-8");
    assertThat(demo.get("/demo.css", null).header("Content-Type"))
        .isEqualTo("text/css; charset=utf-8");
    Response sdk = demo.get("/veil-sdk.js", null);
    assertThat(sdk.header("Content-Type")).isEqualTo("text/javascript; charset=utf-8");
    assertThat(sdk.body()).isEqualTo(api.get("/static/veil-sdk.js", null).body());
    assertThat(demo.get("/admin.key", null).code()).isEqualTo(404);
  }

  @Test
  void login_generatesWithTheDemosKey_andTheIdentityRefreshesAtTheApi() {
    Response r = demo.post("/login", null, "{\"email\":\"User@Example.com \"}");
    assertThat(r.code()).isEqualTo(200);
    JsonNode identity = r.json().path("identity");
    assertThat(identity.fieldNames())
        .toIterable()
        .containsExactlyInAnyOrder(
            "advertising_token",
            "refresh_token",
            "identity_expires",
            "refresh_from",
            "refresh_expires");
    assertThat(r.body()).doesNotContain("vk1.");
    Response refreshed =
        api.post(
            "/v1/token/refresh",
            null,
            "{\"refresh_token\":\"" + identity.path("refresh_token").asText() + "\"}");
    assertThat(refreshed.successBody().path("advertising_token").asText()).isNotEmpty();
  }

  @Test
  void login_ofAnOptedOutUser_getsNoToken() {
    String optOutKey =
        server
            .services()
            .clients()
            .create("optout-operator", 0, Set.of(Role.OPTOUT))
            .key()
            .reveal();
    api.post("/v1/optout", optOutKey, "{\"email\":\"gone@example.com\"}").successBody();
    Response r = demo.post("/login", null, "{\"email\":\"gone@example.com\"}");
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.json().path("optout").asBoolean()).isTrue();
    assertThat(r.json().has("identity")).isFalse();
  }

  @Test
  void login_refusesWhatIsNotAnEmail() {
    for (String body :
        List.of("{\"email\":\"not an email\"}", "{\"email\":\"\"}", "{}", "[1]", "nonsense")) {
      Response r = demo.post("/login", null, body);
      assertThat(r.code()).as(body).isEqualTo(400);
      assertThat(r.json().path("error").asText()).as(body).isNotEmpty();
    }
    Response huge = demo.post("/login", null, "{\"email\":\"" + "a".repeat(20_000) + "\"}");
    assertThat(huge.code()).isEqualTo(413);
  }

  @Test
  void bidder_receivesTheTokenUnchanged() {
    String bid =
        "{\"id\":\"a\",\"user\":{\"ext\":{\"eids\":[{\"source\":\"other\","
            + "\"uids\":[{\"id\":\"x\"}]},"
            + "{\"source\":\"veil\",\"uids\":[{\"id\":\"A4AAAA+/token\",\"atype\":3}]}]}}}";
    Response r = demo.post("/bid", null, bid);
    assertThat(r.code()).isEqualTo(200);
    assertThat(r.json().path("received_token").asText()).isEqualTo("A4AAAA+/token");
    // Not a token this Veil issued: the bidder says why it cannot read it, and does not bid.
    assertThat(r.json().path("decryption").asText()).isEqualTo("MALFORMED");
    assertThat(r.json().path("reason").asText()).isNotEmpty();
    assertThat(r.json().has("bid_price_cpm")).isFalse();
    assertThat(r.json().has("decrypted")).isFalse();
    assertThat(demo.post("/bid", null, "{\"user\":{}}").code()).isEqualTo(400);
  }
}
