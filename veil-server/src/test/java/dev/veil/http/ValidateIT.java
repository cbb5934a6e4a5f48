package dev.veil.http;

import static dev.veil.testing.Http.encode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ValidateIT {
  private static final String TEST_EMAIL = "validate@example.com";
  private static TestNode node;
  private static String generator;
  private static String anyKey;

  @BeforeAll
  static void start() {
    node = TestNode.start();
    generator = node.newApiKey(Role.GENERATOR);
    anyKey = node.newApiKey(Role.MAPPER);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static String advertisingToken(String email) {
    return node.get("/v1/token/generate?email=" + encode(email), generator)
        .bodyNode()
        .path("advertising_token")
        .asText();
  }

  private static Response validate(String query) {
    return node.get("/v1/token/validate?" + query, anyKey);
  }

  @Test
  void validate_testIdentityWithItsToken_isTrue() {
    String token = advertisingToken(TEST_EMAIL);

    Response byEmail = validate("token=" + encode(token) + "&email=" + encode(TEST_EMAIL));
    Response byHash =
        validate(
            "token=" + encode(token) + "&email_hash=" + encode(TestNode.sha256Base64(TEST_EMAIL)));

    assertThat(byEmail.code()).isEqualTo(200);
    assertThat(byEmail.body()).isEqualTo("{\"status\":\"success\",\"body\":true}");
    assertThat(byHash.bodyNode().asBoolean()).isTrue();
  }

  @Test
  void validate_post_withJsonBody_isTrue() {
    String token = advertisingToken(TEST_EMAIL);

    Response r =
        node.post(
            "/v1/token/validate",
            anyKey,
            "{\"token\":\"" + token + "\",\"email\":\"" + TEST_EMAIL + "\"}");

    assertThat(r.bodyNode().asBoolean()).isTrue();
  }

  @Test
  void validate_otherIdentityWithItsOwnToken_isFalse() {
    String token = advertisingToken("someone@example.com");

    Response r = validate("token=" + encode(token) + "&email=someone%40example.com");

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("{\"status\":\"success\",\"body\":false}");
  }

  @Test
  void validate_testIdentityWithAnotherIdentitysToken_isFalse() {
    String token = advertisingToken("someone@example.com");

    assertThat(
            validate("token=" + encode(token) + "&email=" + encode(TEST_EMAIL))
                .bodyNode()
                .asBoolean())
        .isFalse();
  }

  @Test
  void validate_missingOrMalformedToken_isFalse() {
    String token = advertisingToken(TEST_EMAIL);

    assertThat(validate("email=" + encode(TEST_EMAIL)).bodyNode().asBoolean()).isFalse();
    assertThat(validate("token=&email=" + encode(TEST_EMAIL)).bodyNode().asBoolean()).isFalse();
    assertThat(validate("token=garbage&email=" + encode(TEST_EMAIL)).bodyNode().asBoolean())
        .isFalse();
    String truncated = token.substring(0, token.length() - 3);
    assertThat(validate("token=" + truncated + "&email=" + encode(TEST_EMAIL)).code())
        .isEqualTo(200);
    assertThat(
            validate("token=" + truncated + "&email=" + encode(TEST_EMAIL)).bodyNode().asBoolean())
        .isFalse();
  }

  @Test
  void validate_withoutIdentity_returnsRequiredParameterMissing() {
    Response r = validate("token=abc");

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message()).startsWith("Required Parameter Missing: exactly one of");
  }

  @Test
  void validate_withInvalidIdentifier_returnsInvalidIdentifier() {
    Response r = validate("token=abc&email=nope");

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message()).isEqualTo("Invalid Identifier");
  }

  @Test
  void validate_withoutKey_isUnauthorizedInVeilProfile() {
    Response r = node.get("/v1/token/validate?token=abc&email=" + encode(TEST_EMAIL), null);

    assertThat(r.code()).isEqualTo(401);
    assertThat(r.status()).isEqualTo("unauthorized");
  }
}
