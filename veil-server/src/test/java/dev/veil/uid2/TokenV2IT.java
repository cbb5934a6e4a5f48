package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v2/token/validate} and {@code POST /v2/token/logout} in UID2's v2 envelope, over
 * real HTTP: the answers v1 gives, sealed, and the roles UID2 asks for.
 */
class TokenV2IT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TEST_EMAIL = "validate@example.com";
  private static TestNode node;
  private static CreatedClient generator;
  private static CreatedClient optOut;

  @BeforeAll
  static void start() {
    node = TestNode.start();
    generator = node.newClient(Role.GENERATOR);
    optOut = node.newClient(Role.OPTOUT);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  /** Sends {@code json} sealed with {@code client}'s secret and returns the opened 200 answer. */
  private static JsonNode call(String path, CreatedClient client, String json) throws IOException {
    EnvelopeSecret key = client.client().secret().envelopeKey();
    long nonce = 0x1234_5678_9abc_def0L;
    byte[] sealed =
        V2Envelope.BASE64.sealRequest(
            json.getBytes(StandardCharsets.UTF_8),
            nonce,
            key,
            node.clock().instant(),
            NonceSource.secure());
    Response r =
        node.post(path, client.key().reveal(), new String(sealed, StandardCharsets.US_ASCII));
    assertThat(r.code()).as(r.body()).isEqualTo(200);
    assertThat(r.body()).doesNotContain("status"); // sealed, not plain JSON
    return JSON.readTree(
        V2Envelope.BASE64
            .openResponse(r.body().getBytes(StandardCharsets.US_ASCII), key, nonce)
            .payloadBytes());
  }

  private static String advertisingToken(String email) {
    return node.get("/v1/token/generate?email=" + email, generator.key().reveal())
        .bodyNode()
        .path("advertising_token")
        .asText();
  }

  @Test
  void validate_theTestIdentityWithItsToken_isTrue_andAnotherIdentity_isFalse() throws IOException {
    String token = advertisingToken(TEST_EMAIL);

    JsonNode valid =
        call(
            "/v2/token/validate",
            generator,
            "{\"token\":\"" + token + "\",\"email\":\"" + TEST_EMAIL + "\"}");
    JsonNode other =
        call(
            "/v2/token/validate",
            generator,
            "{\"token\":\""
                + advertisingToken("someone@example.com")
                + "\",\"email\":\"someone@example.com\"}");

    assertThat(valid.path("status").asText()).isEqualTo("success");
    assertThat(valid.path("body").asBoolean()).isTrue();
    assertThat(other.path("body").isBoolean()).isTrue();
    assertThat(other.path("body").asBoolean()).isFalse();
  }

  @Test
  void logout_recordsTheOptOutDurably_andAnswersAsUid2Does() throws IOException {
    JsonNode answer = call("/v2/token/logout", optOut, "{\"email\":\"leaving@example.com\"}");

    assertThat(answer.toString())
        .isEqualTo("{\"status\":\"success\",\"body\":{\"optout\":\"OK\"}}");
    Response mapped =
        node.get("/v1/identity/map?email=leaving%40example.com", node.newApiKey(Role.MAPPER));
    assertThat(mapped.status()).isEqualTo("optout");
  }

  @Test
  void logout_withoutTheOptOutRole_isRefused_andRecordsNothing() {
    Response r = node.post("/v2/token/logout", generator.key().reveal(), "AAAA");

    assertThat(r.code()).isEqualTo(401);
    assertThat(r.status()).isEqualTo("unauthorized");
  }

  @Test
  void validate_withAnEnvelopeThatDoesNotOpen_isA400ClientError() {
    Response r = node.post("/v2/token/validate", generator.key().reveal(), "bm90IGFuIGVudmVsb3Bl");

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("client_error");
    assertThat(r.message()).isEqualTo("Invalid body: Body too short. Check encryption method.");
  }
}
