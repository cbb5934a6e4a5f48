package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.uid2.client.IdentityMapClient;
import com.uid2.client.IdentityMapInput;
import com.uid2.client.IdentityMapResponse;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code POST /v2/identity/map} against UID2's own Java SDK ({@code com.uid2:uid2-client}, its
 * {@code IdentityMapClient}) over real HTTP, and against hand-made envelopes for every way one can
 * be wrong.
 */
class IdentityMapV2IT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static TestNode node;
  private static CreatedClient mapper;
  private static String secret;

  @BeforeAll
  static void start() {
    node = TestNode.start();
    // UID2's SDK stamps its envelopes with the real time, which must be within 2 minutes of the
    // node's clock; the test's own envelopes use the node's clock.
    node.clock().set(Instant.now());
    mapper = node.newClient(Role.MAPPER);
    secret = mapper.client().secret().reveal();
    node.post("/v1/optout", node.newApiKey(Role.OPTOUT), "{\"email\":\"optedout@example.com\"}");
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static IdentityMapClient uid2Client(String apiKey, String secretKey) {
    return new IdentityMapClient("http://127.0.0.1:" + node.port(), apiKey, secretKey);
  }

  /** The advertising id that the v1 API gives for {@code email}. */
  private static String v1AdvertisingId(String email) {
    return node.get("/v1/identity/map?email=" + email, mapper.key().reveal())
        .bodyNode()
        .path("advertising_id")
        .asText();
  }

  @Test
  void uid2sIdentityMapClient_mapsEmails_asV1Does_andListsOptOutsAndInvalidOnes() {
    IdentityMapResponse answer =
        uid2Client(mapper.key().reveal(), secret)
            .generateIdentityMap(
                IdentityMapInput.fromEmails(
                    List.of("user@example.com", "Other.User@Example.com", "optedout@example.com")));

    assertThat(answer.isSuccess()).isTrue();
    assertThat(answer.getMappedIdentities())
        .containsOnlyKeys("user@example.com", "Other.User@Example.com");
    assertThat(answer.getMappedIdentities().get("user@example.com").getRawUid())
        .isEqualTo(v1AdvertisingId("user@example.com"));
    assertThat(answer.getMappedIdentities().get("user@example.com").getBucketId()).isNotEmpty();
    assertThat(answer.getUnmappedIdentities()).containsOnlyKeys("optedout@example.com");
    assertThat(answer.getUnmappedIdentities().get("optedout@example.com").getReason())
        .isEqualTo("optout");
  }

  @Test
  void uid2sIdentityMapClient_withAnotherSecret_isRefused() {
    String wrong = Base64.getEncoder().encodeToString(new byte[32]);

    Throwable refused =
        org.assertj.core.api.Assertions.catchThrowable(
            () ->
                uid2Client(mapper.key().reveal(), wrong)
                    .generateIdentityMap(IdentityMapInput.fromEmails(List.of("a@example.com"))));

    assertThat(refused).isInstanceOf(RuntimeException.class).hasMessageContaining("400");
  }

  private static String seal(String json, EnvelopeSecret key, long nonce, long skewMillis) {
    byte[] sealed =
        V2Envelope.BASE64.sealRequest(
            json.getBytes(StandardCharsets.UTF_8),
            nonce,
            key,
            node.clock().instant().plusMillis(skewMillis),
            NonceSource.secure());
    return new String(sealed, StandardCharsets.US_ASCII);
  }

  @Test
  void aSealedAnswer_opensWithTheCallersSecret_andEchoesTheNonce() throws Exception {
    EnvelopeSecret key = EnvelopeSecret.fromBase64(secret);
    Response r =
        node.post(
            "/v2/identity/map",
            mapper.key().reveal(),
            seal("{\"email\":[\"user@example.com\"]}", key, 42, 0));

    assertThat(r.code()).isEqualTo(200);
    byte[] opened =
        V2Envelope.BASE64
            .openResponse(r.body().getBytes(StandardCharsets.US_ASCII), key, 42)
            .payloadBytes();
    JsonNode answer = JSON.readTree(opened);
    assertThat(answer.path("status").asText()).isEqualTo("success");
    assertThat(answer.path("body").path("mapped").get(0).path("advertising_id").asText())
        .isEqualTo(v1AdvertisingId("user@example.com"));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "not base64!",
        "short",
        "wrong version",
        "wrong secret",
        "stale",
        "future",
        "empty"
      })
  void aBadEnvelope_isA400ClientError_withUid2sMessage_neverA5xx(String what) {
    EnvelopeSecret key = EnvelopeSecret.fromBase64(secret);
    String good = seal("{\"email\":[\"user@example.com\"]}", key, 7, 0);
    String body =
        switch (what) {
          case "not base64!" -> "!!!" + good;
          case "short" -> Base64.getEncoder().encodeToString(new byte[20]);
          case "wrong version" -> {
            byte[] raw = Base64.getDecoder().decode(good);
            raw[0] = 2;
            yield Base64.getEncoder().encodeToString(raw);
          }
          case "wrong secret" ->
              seal("{\"email\":[\"user@example.com\"]}", EnvelopeSecret.of(new byte[32]), 7, 0);
          case "stale" -> seal("{\"email\":[]}", key, 7, -Duration.ofMinutes(3).toMillis());
          case "future" -> seal("{\"email\":[]}", key, 7, Duration.ofMinutes(3).toMillis());
          default -> "";
        };

    Response r = node.post("/v2/identity/map", mapper.key().reveal(), body);

    assertThat(r.code()).as(r.body()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("client_error");
    assertThat(r.message())
        .startsWith(
            what.equals("stale") || what.equals("future") ? "Invalid timestamp" : "Invalid body");
    assertThat(r.body()).doesNotContain(secret);
  }

  @Test
  void aBadJsonBodyInsideAGoodEnvelope_isA400WithV1sMessage_inPlainJson() {
    EnvelopeSecret key = EnvelopeSecret.fromBase64(secret);
    Response r =
        node.post("/v2/identity/map", mapper.key().reveal(), seal("{\"emails\":[]}", key, 1, 0));

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("client_error");
    assertThat(r.message()).startsWith("Invalid body: expected an array of email");
  }

  @Test
  void withoutTheMapperRole_isRefusedBeforeTheEnvelopeIsOpened() {
    Response r =
        node.post(
            "/v2/identity/map",
            node.newApiKey(Role.GENERATOR),
            seal("{\"email\":[\"a@example.com\"]}", EnvelopeSecret.of(new byte[32]), 1, 0));

    assertThat(r.code()).isEqualTo(401);
  }
}
