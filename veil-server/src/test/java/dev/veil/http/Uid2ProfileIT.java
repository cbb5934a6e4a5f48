package dev.veil.http;

import static dev.veil.testing.Http.encode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.net.http.HttpRequest;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code api.profile=uid2} differences of docs/spec.md 1.10; everything else is as in the veil
 * profile.
 */
class Uid2ProfileIT {
  private static TestNode node;
  private static String generator;
  private static String mapper;

  @BeforeAll
  static void start() {
    node = TestNode.start(Map.of("api.profile", "uid2"));
    generator = node.newApiKey(Role.GENERATOR);
    mapper = node.newApiKey(Role.MAPPER);
    node.post("/v1/optout", node.newApiKey(Role.OPTOUT), "{\"email\":\"recorded@example.com\"}");
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static Response generate(String parameter, String value) {
    return node.get("/v1/token/generate?" + parameter + "=" + encode(value), generator);
  }

  private static Response refreshOf(Response generated) {
    String refreshToken = generated.bodyNode().path("refresh_token").asText();
    return node.get("/v1/token/refresh?refresh_token=" + encode(refreshToken), null);
  }

  @Test
  void badInput_isSpelledClientError() {
    Response missing = node.get("/v1/token/generate", generator);
    Response tooLarge =
        node.post("/v1/identity/map", mapper, "{\"email\":[\"" + "a".repeat(1 << 20) + "\"]}");

    assertThat(missing.status()).isEqualTo("client_error");
    assertThat(missing.message()).startsWith("Required Parameter Missing");
    assertThat(tooLarge.code()).isEqualTo(413);
    assertThat(tooLarge.status()).isEqualTo("client_error");
  }

  @Test
  void generate_forOptedOutIdentity_issuesTokens_andRefreshEndsTheChain() {
    Response generated = generate("email", "recorded@example.com");

    assertThat(generated.status()).isEqualTo("success");
    assertThat(refreshOf(generated).status()).isEqualTo("optout");
  }

  @Test
  void mapGet_forOptedOutIdentity_maps_butBatchStillReportsOptout() {
    Response single = node.get("/v1/identity/map?email=recorded%40example.com", mapper);
    Response batch =
        node.post("/v1/identity/map", mapper, "{\"email\":[\"recorded@example.com\"]}");

    assertThat(single.status()).isEqualTo("success");
    assertThat(single.bodyNode().path("advertising_id").asText()).hasSize(44);
    assertThat(batch.bodyNode().path("unmapped").get(0).path("reason").asText())
        .isEqualTo("optout");
  }

  @Test
  void validate_needsNoKey() {
    String token =
        generate("email", "validate@example.com").bodyNode().path("advertising_token").asText();

    Response r =
        node.get(
            "/v1/token/validate?token=" + encode(token) + "&email=validate%40example.com", null);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.bodyNode().asBoolean()).isTrue();
  }

  @Test
  void validate_answersHeadWith405_asInTheVeilProfile() {
    Response r =
        node.send(
            HttpRequest.newBuilder(
                    node.uri("/v1/token/validate?token=x&email=validate%40example.com"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build());

    assertThat(r.code()).isEqualTo(405);
    assertThat(r.header("Allow")).isEqualTo("GET, POST");
  }

  @Test
  void testIdentity_validateAddress_refreshesNormally() {
    assertThat(refreshOf(generate("email", "validate@example.com")).status()).isEqualTo("success");
  }

  @ParameterizedTest
  @ValueSource(strings = {"optout@example.com", "+00000000000"})
  void testIdentity_alwaysOptedOut_getsTokensThatEndOnRefresh_andIsUnmappedInBatches(
      String identity) {
    String parameter = identity.startsWith("+") ? "phone" : "email";
    Response generated = generate(parameter, identity);
    Response batch =
        node.post("/v1/identity/map", mapper, "{\"" + parameter + "\":[\"" + identity + "\"]}");

    assertThat(generated.status()).isEqualTo("success");
    assertThat(refreshOf(generated).status()).isEqualTo("optout");
    assertThat(batch.bodyNode().path("unmapped").get(0).path("reason").asText())
        .isEqualTo("optout");
  }

  @ParameterizedTest
  @ValueSource(strings = {"refresh-optout@example.com", "+00000000002"})
  void testIdentity_optedOutOnRefreshOnly(String identity) {
    String parameter = identity.startsWith("+") ? "phone" : "email";
    Response batch =
        node.post("/v1/identity/map", mapper, "{\"" + parameter + "\":[\"" + identity + "\"]}");

    assertThat(refreshOf(generate(parameter, identity)).status()).isEqualTo("optout");
    assertThat(batch.bodyNode().path("mapped")).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/v1/token/generate/",
        "//v1/token/generate",
        "/v1/./token/generate",
        "/v1/token/%67enerate"
      })
  void pathsThatUid2sRouterMatched_reachTheirRoute(String path) {
    Response r = node.get(path + "?email=user%40example.com", generator);
    Response noKey = node.get(path + "?email=user%40example.com", null);

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.bodyNode().path("advertising_token").asText()).isNotEmpty();
    assertThat(noKey.code()).isEqualTo(401);
  }

  @Test
  void pathsThatNormalizeToNoRoute_areStillUnknown() {
    assertThat(node.get("/v1/token%2Fgenerate?email=user%40example.com", generator).status())
        .isEqualTo("unknown_path");
    assertThat(node.get("/v1/token/generate/x", generator).status()).isEqualTo("unknown_path");
  }

  @Test
  void unauthorizedAndTokenErrors_areTheSameAsInTheVeilProfile() {
    assertThat(node.get("/v1/identity/map?email=a%40b.com", null).status())
        .isEqualTo("unauthorized");
    assertThat(node.get("/v1/token/refresh?refresh_token=bad", generator).status())
        .isEqualTo("invalid_token");
    assertThat(node.get("/v1/token/refresh?refresh_token=bad", null).status()).isEqualTo("error");
  }
}
