package dev.veil.http;

import static dev.veil.testing.Http.encode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TokenGenerateIT {
  private static final String EXACTLY_ONE =
      "Required Parameter Missing: exactly one of [email, email_hash, phone, phone_hash] must be"
          + " specified";
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

  @Test
  void generate_withEmail_returnsTokensAndEpochMillisTimes() {
    Response r = node.get("/v1/token/generate?email=" + encode("User@Example.com"), generator);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    assertThat(r.status()).isEqualTo("success");
    JsonNode body = r.bodyNode();
    assertThat(body.path("advertising_token").asText()).isNotEmpty();
    assertThat(body.path("refresh_token").asText()).isNotEmpty();
    long now = node.clock().millis();
    assertThat(body.path("refresh_from").asLong()).isEqualTo(now + 3_600_000L);
    assertThat(body.path("identity_expires").asLong()).isEqualTo(now + 72 * 3_600_000L);
    assertThat(body.path("refresh_expires").asLong()).isEqualTo(now + 30L * 24 * 3_600_000L);
  }

  @ParameterizedTest
  @ValueSource(strings = {"email_hash", "phone", "phone_hash"})
  void generate_withEachOtherIdentityKind_returnsTokens(String parameter) {
    String value =
        switch (parameter) {
          case "email_hash" -> TestNode.sha256Base64("user@example.com");
          case "phone" -> "+14155550100";
          default -> TestNode.sha256Base64("+14155550100");
        };

    Response r = node.get("/v1/token/generate?" + parameter + "=" + encode(value), generator);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.bodyNode().path("advertising_token").asText()).isNotEmpty();
  }

  @Test
  void generate_post_withJsonBody_returnsTokens() {
    Response r = node.post("/v1/token/generate", generator, "{\"email\":\"user@example.com\"}");

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.bodyNode().path("refresh_token").asText()).isNotEmpty();
  }

  @Test
  void generate_sameIdentityTwice_givesDifferentTokens() {
    String first =
        node.get("/v1/token/generate?email=a%40example.com", generator)
            .bodyNode()
            .path("advertising_token")
            .asText();
    String second =
        node.get("/v1/token/generate?email=a%40example.com", generator)
            .bodyNode()
            .path("advertising_token")
            .asText();

    assertThat(first).isNotEqualTo(second);
  }

  @Test
  void generate_tokenCarriesCallersSiteId() {
    ClientService.CreatedClient client = node.newClient(Role.GENERATOR);
    Response r = node.get("/v1/token/generate?email=site%40example.com", client.key().reveal());

    AdvertisingTokenPayload payload =
        new AdvertisingTokenCodec(NonceSource.secure())
            .decode(r.bodyNode().path("advertising_token").asText(), node.services().keys().ring());
    assertThat(payload.publisher().siteId()).isEqualTo(client.client().siteId());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "?",
        "?other=1",
        "?email=a%40b.com&phone=%2B14155550100",
        "?email=a%40b.com&email=c%40d.com",
        "?email_hash=x&phone_hash=y"
      })
  void generate_withoutExactlyOneIdentity_returnsRequiredParameterMissing(String query) {
    Response r = node.get("/v1/token/generate" + query, generator);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("clienterror");
    assertThat(r.message()).isEqualTo(EXACTLY_ONE);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"email=not-an-email", "email=", "phone=12345", "email_hash=abc", "phone_hash=%00"})
  void generate_withIdentifierThatDoesNotNormalize_returnsInvalidIdentifier(String query) {
    Response r = node.get("/v1/token/generate?" + query, generator);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("clienterror");
    assertThat(r.message()).isEqualTo("Invalid Identifier");
  }

  @Test
  void generate_hashWithUnescapedPlus_isInvalidIdentifierNotServerError() {
    String hash = hashContainingPlus();

    Response raw =
        node.get(
            "/v1/token/generate?email_hash=" + hash.replace("=", "%3D").replace("/", "%2F"),
            generator);
    Response escaped = node.get("/v1/token/generate?email_hash=" + encode(hash), generator);

    assertThat(raw.code()).isEqualTo(400);
    assertThat(raw.message()).isEqualTo("Invalid Identifier");
    assertThat(escaped.code()).isEqualTo(200);
  }

  static String hashContainingPlus() {
    for (int i = 0; ; i++) {
      String hash = TestNode.sha256Base64("user" + i + "@example.com");
      if (hash.contains("+")) {
        return hash;
      }
    }
  }

  @Test
  void generate_errorMessages_neverEchoTheIdentifier() {
    Response r = node.get("/v1/token/generate?email=secret-person", generator);

    assertThat(r.body()).doesNotContain("secret-person");
  }

  @Test
  void generate_post_withNonStringValue_returnsClientErrorNamingParameter() {
    Response r = node.post("/v1/token/generate", generator, "{\"email\":42}");

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message()).isEqualTo("Invalid parameter: email must be a string");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "[]",
        "\"email\"",
        "{\"email\":\"a@b.com\"",
        "{email:1}",
        "{\"email\":\"a@b.com\"} x"
      })
  void generate_post_withMalformedBody_returnsClientError(String body) {
    Response r = node.post("/v1/token/generate", generator, body);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("clienterror");
    assertThat(r.message()).isNotBlank();
  }

  @Test
  void generate_withoutKey_returnsUnauthorizedJson() {
    Response r = node.get("/v1/token/generate?email=a%40b.com", null);

    assertThat(r.code()).isEqualTo(401);
    assertThat(r.status()).isEqualTo("unauthorized");
    assertThat(r.header("WWW-Authenticate")).isEqualTo("Bearer");
  }

  @Test
  void generate_withUnknownKey_returnsUnauthorized() {
    Response r =
        node.get(
            "/v1/token/generate?email=a%40b.com",
            "vk1.AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB");

    assertThat(r.code()).isEqualTo(401);
    assertThat(r.message()).isEqualTo("Invalid API key");
  }

  @Test
  void generate_withKeyLackingRole_returnsUnauthorized() {
    Response r = node.get("/v1/token/generate?email=a%40b.com", node.newApiKey(Role.MAPPER));

    assertThat(r.code()).isEqualTo(401);
    assertThat(r.message()).isEqualTo("API key lacks the GENERATOR role");
  }

  @Test
  void generate_withDisabledKey_returnsUnauthorized() {
    ClientService.CreatedClient client = node.newClient(Role.GENERATOR);
    node.services().clients().setEnabled(client.client().id(), false);

    Response r = node.get("/v1/token/generate?email=a%40b.com", client.key().reveal());

    assertThat(r.code()).isEqualTo(401);
  }

  @Test
  void generate_bearerWordIsCaseInsensitive() {
    Response r =
        node.send(
            java.net.http.HttpRequest.newBuilder(node.uri("/v1/token/generate?email=a%40b.com"))
                .header("Authorization", "bEaReR " + generator)
                .build());

    assertThat(r.code()).isEqualTo(200);
  }

  @Test
  void generate_afterOptOut_returnsOptoutWithoutTokens() {
    String optOut = node.newApiKey(Role.OPTOUT);
    assertThat(node.post("/v1/optout", optOut, "{\"email\":\"gone@example.com\"}").code())
        .isEqualTo(200);

    Response r = node.get("/v1/token/generate?email=gone%40example.com", generator);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("{\"status\":\"optout\"}");
  }
}
