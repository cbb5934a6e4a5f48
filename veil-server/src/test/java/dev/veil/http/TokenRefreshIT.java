package dev.veil.http;

import static dev.veil.testing.Http.encode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TokenRefreshIT {
  private TestNode node;
  private String generator;

  @BeforeEach
  void start() {
    node = TestNode.start();
    generator = node.newApiKey(Role.GENERATOR);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private JsonNode generate(String email) {
    Response r = node.get("/v1/token/generate?email=" + encode(email), generator);
    assertThat(r.code()).isEqualTo(200);
    return r.bodyNode();
  }

  private Response refresh(String refreshToken, String apiKey) {
    return node.get("/v1/token/refresh?refresh_token=" + encode(refreshToken), apiKey);
  }

  @Test
  void refresh_withoutKey_returnsNewPairWithLaterTimes() {
    JsonNode first = generate("user@example.com");
    node.clock().advance(Duration.ofMinutes(90));

    Response r = refresh(first.path("refresh_token").asText(), null);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.status()).isEqualTo("success");
    JsonNode body = r.bodyNode();
    assertThat(body.path("advertising_token").asText())
        .isNotEqualTo(first.path("advertising_token").asText());
    assertThat(body.path("refresh_token").asText())
        .isNotEqualTo(first.path("refresh_token").asText());
    assertThat(body.path("refresh_from").asLong()).isEqualTo(node.clock().millis() + 3_600_000L);
    assertThat(body.path("identity_expires").asLong())
        .isGreaterThan(first.path("identity_expires").asLong());
  }

  @Test
  void refresh_post_withJsonBody_returnsNewPair() {
    String token = generate("user@example.com").path("refresh_token").asText();

    Response r = node.post("/v1/token/refresh", null, "{\"refresh_token\":\"" + token + "\"}");

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.bodyNode().path("refresh_token").asText()).isNotEmpty();
  }

  @Test
  void refresh_previousPairStaysUsable() {
    String token = generate("user@example.com").path("refresh_token").asText();

    assertThat(refresh(token, null).code()).isEqualTo(200);
    assertThat(refresh(token, null).code()).isEqualTo(200);
  }

  @Test
  void refresh_withoutParameter_returnsRequiredParameterMissing() {
    Response get = node.get("/v1/token/refresh", null);
    Response post = node.post("/v1/token/refresh", null, "{}");

    for (Response r : new Response[] {get, post}) {
      assertThat(r.code()).isEqualTo(400);
      assertThat(r.status()).isEqualTo("clienterror");
      assertThat(r.message()).isEqualTo("Required Parameter Missing: refresh_token");
    }
  }

  @Test
  void refresh_emptyParameter_withKey_isInvalidTokenNotMissing() {
    Response r = node.get("/v1/token/refresh?refresh_token=", generator);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("invalid_token");
    assertThat(r.message()).isEqualTo("Invalid Token presented ");
  }

  @Test
  void refresh_tamperedToken_withKey_returnsInvalidTokenEchoingIt() {
    String tampered = flipOneByte(generate("user@example.com").path("refresh_token").asText());

    Response r = refresh(tampered, generator);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("invalid_token");
    assertThat(r.message()).isEqualTo("Invalid Token presented " + tampered);
  }

  @Test
  void refresh_tamperedToken_withoutKey_returnsGenericError() {
    String tampered = flipOneByte(generate("user@example.com").path("refresh_token").asText());

    Response r = refresh(tampered, null);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("error");
    assertThat(r.message()).isEqualTo("Error refreshing token");
  }

  @Test
  void refresh_withInvalidKey_isTreatedAsUnauthenticated() {
    Response r = refresh("garbage", "vk1.AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB");

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("error");
  }

  @Test
  void refresh_anyValidKeyCountsEvenWithoutGeneratorRole() {
    Response r = refresh("garbage", node.newApiKey(Role.MAPPER));

    assertThat(r.status()).isEqualTo("invalid_token");
  }

  @Test
  void refresh_expiredToken_withKey_returnsExpiredToken() {
    String token = generate("user@example.com").path("refresh_token").asText();
    node.clock().advance(Duration.ofDays(30));

    Response r = refresh(token, generator);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("expired_token");
    assertThat(r.message()).isEqualTo("Expired Token presented");
  }

  @Test
  void refresh_expiredToken_withoutKey_returnsGenericError() {
    String token = generate("user@example.com").path("refresh_token").asText();
    node.clock().advance(Duration.ofDays(31));

    Response r = refresh(token, null);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("error");
    assertThat(r.message()).isEqualTo("Error refreshing token");
  }

  @Test
  void refresh_afterOptOut_returnsOptoutWithAndWithoutKey() {
    String token = generate("leaving@example.com").path("refresh_token").asText();
    node.post("/v1/optout", node.newApiKey(Role.OPTOUT), "{\"email\":\"leaving@example.com\"}");

    assertThat(refresh(token, null).body()).isEqualTo("{\"status\":\"optout\"}");
    assertThat(refresh(token, generator).body()).isEqualTo("{\"status\":\"optout\"}");
    assertThat(refresh(token, null).code()).isEqualTo(200);
  }

  @ParameterizedTest
  @ValueSource(strings = {"validate@example.com", "validate@email.com", "+12345678901"})
  void refresh_ofTestIdentity_returnsOptout(String identity) {
    String parameter = identity.startsWith("+") ? "phone" : "email";
    String token =
        node.get("/v1/token/generate?" + parameter + "=" + encode(identity), generator)
            .bodyNode()
            .path("refresh_token")
            .asText();

    Response r = refresh(token, null);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.status()).isEqualTo("optout");
  }

  @Test
  void refresh_tokenWithUnescapedPlusInTheQuery_isClientErrorSayingWhatToFix_withAndWithoutKey() {
    String token = tokenContainingPlus();
    String query =
        "/v1/token/refresh?refresh_token=" + token.replace("=", "%3D").replace("/", "%2F");

    for (String apiKey : new String[] {generator, null}) {
      Response r = node.get(query, apiKey);

      assertThat(r.code()).isEqualTo(400);
      assertThat(r.status()).isEqualTo("clienterror");
      assertThat(r.message()).contains("%2B").doesNotContain(token.substring(0, 12));
    }
  }

  @Test
  void refresh_tokenWithASpaceInAJsonBody_isAnInvalidToken() {
    String token = tokenContainingPlus().replace('+', ' ');

    Response r = node.post("/v1/token/refresh", generator, "{\"refresh_token\":\"" + token + "\"}");

    assertThat(r.status()).isEqualTo("invalid_token");
  }

  @Test
  void refresh_malformedTokens_areInvalidNeverServerErrors() {
    String token = generate("user@example.com").path("refresh_token").asText();
    String[] variants = {
      token.substring(0, token.length() - 4),
      token + "AAAA",
      token.substring(4),
      "!!!!",
      "A",
      "AAAA".repeat(200),
      Base64.getEncoder().encodeToString(new byte[124]),
      token.toLowerCase(Locale.ROOT),
      swapPrefix(token),
      "\u00e9\u00e8"
    };
    for (String variant : variants) {
      Response withKey = refresh(variant, generator);
      Response withoutKey = refresh(variant, null);
      assertThat(withKey.code()).as(variant).isEqualTo(400);
      assertThat(withKey.status()).isEqualTo("invalid_token");
      assertThat(withoutKey.status()).isEqualTo("error");
    }
  }

  private String tokenContainingPlus() {
    while (true) {
      String token = generate("user@example.com").path("refresh_token").asText();
      if (token.contains("+")) {
        return token;
      }
    }
  }

  static String flipOneByte(String base64) {
    byte[] bytes = Base64.getDecoder().decode(base64);
    bytes[bytes.length / 2] ^= 0x01;
    return Base64.getEncoder().encodeToString(bytes);
  }

  private static String swapPrefix(String base64) {
    byte[] bytes = Base64.getDecoder().decode(base64);
    bytes[0] = (byte) (bytes[0] == 0x03 ? 0x07 : 0x03);
    return Base64.getEncoder().encodeToString(bytes);
  }
}
