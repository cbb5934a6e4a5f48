package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.uid2.client.IdentityTokens;
import com.uid2.client.PublisherUid2Client;
import com.uid2.client.TokenGenerateInput;
import com.uid2.client.TokenGenerateResponse;
import com.uid2.client.TokenRefreshResponse;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.AesGcm;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.crypto.AEADBadTagException;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v2/token/generate} and {@code POST /v2/token/refresh} over real HTTP: against UID2's
 * own Java SDK ({@code PublisherUid2Client}) in both profiles, and by hand for the refresh answer's
 * key, broken tokens and v1's use of the refresh tokens v2 issues.
 */
class TokenGenerateRefreshV2IT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static TestNode veil;
  private static TestNode uid2;
  private static CreatedClient veilGenerator;
  private static CreatedClient uid2Generator;

  @BeforeAll
  static void start() {
    veil = TestNode.start();
    uid2 = TestNode.start(Map.of("api.profile", "uid2"));
    veilGenerator = atRealTime(veil);
    uid2Generator = atRealTime(uid2);
  }

  /**
   * Moves {@code node}'s clock to the real time (UID2's SDK stamps its envelopes with it and checks
   * the answer's times against it), gives every keyset a key active then, and returns a new client
   * with the GENERATOR role.
   */
  private static CreatedClient atRealTime(TestNode node) {
    // Whole milliseconds: TokenService truncates its time to them, and a key made now must be
    // active at that time.
    node.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    CreatedClient client = node.newClient(Role.GENERATOR);
    node.services().keys().ensureKeysets(List.copyOf(node.services().keys().ring().siteIds()));
    return client;
  }

  @AfterAll
  static void stop() {
    veil.close();
    uid2.close();
  }

  private static PublisherUid2Client sdk(TestNode node, CreatedClient client) {
    return new PublisherUid2Client(
        "http://127.0.0.1:" + node.port(),
        client.key().reveal(),
        client.client().secret().reveal());
  }

  @Test
  void uid2sSdk_generates_andRefreshesTwice_withV1sTokens() {
    PublisherUid2Client client = sdk(veil, veilGenerator);

    TokenGenerateResponse generated =
        client.generateTokenResponse(TokenGenerateInput.fromEmail("user@example.com"));

    assertThat(generated.isSuccess()).isTrue();
    IdentityTokens identity = generated.getIdentity();
    assertThat(identity).isNotNull();
    assertThat(advertisingId(identity.getAdvertisingToken())).isEqualTo(v1AdvertisingId());

    TokenRefreshResponse first = client.refreshToken(identity);
    assertThat(first.isSuccess()).isTrue();
    IdentityTokens next = first.getIdentity();
    assertThat(next).isNotNull();
    assertThat(next.getRefreshToken()).isNotEqualTo(identity.getRefreshToken());
    assertThat(advertisingId(next.getAdvertisingToken())).isEqualTo(v1AdvertisingId());

    TokenRefreshResponse second = client.refreshToken(next);
    assertThat(second.isSuccess()).isTrue();
    assertThat(second.getIdentity().getRefreshToken()).isNotEqualTo(next.getRefreshToken());
  }

  /** The advertising id inside {@code token}, decrypted with the node's keys (base64). */
  private static String advertisingId(String token) {
    byte[] id =
        new AdvertisingTokenCodec(NonceSource.secure())
            .decode(token, veil.services().keys().ring())
            .advertisingId();
    return Base64.getEncoder().encodeToString(id);
  }

  /** The advertising id that v1's map gives for user@example.com. */
  private static String v1AdvertisingId() {
    return veil.get("/v1/identity/map?email=user@example.com", veil.newApiKey(Role.MAPPER))
        .bodyNode()
        .path("advertising_id")
        .asText();
  }

  @Test
  void uid2sSdk_inTheVeilProfile_refreshOfTheValidateIdentity_isOptout_asOnV1() {
    PublisherUid2Client client = sdk(veil, veilGenerator);

    TokenGenerateResponse generated =
        client.generateTokenResponse(TokenGenerateInput.fromEmail("validate@example.com"));

    assertThat(generated.isSuccess()).isTrue();
    assertThat(client.refreshToken(generated.getIdentity()).isOptout()).isTrue();
  }

  @Test
  void uid2sSdk_inTheUid2Profile_validateIdentitysToken_validatesOnV1_andRefreshes() {
    PublisherUid2Client client = sdk(uid2, uid2Generator);

    TokenGenerateResponse generated =
        client.generateTokenResponse(TokenGenerateInput.fromEmail("validate@example.com"));

    assertThat(generated.isSuccess()).isTrue();
    Response validated =
        uid2.post(
            "/v1/token/validate",
            null,
            "{\"token\":\""
                + generated.getIdentity().getAdvertisingToken()
                + "\",\"email\":\"validate@example.com\"}");
    assertThat(validated.code()).as(validated.body()).isEqualTo(200);
    assertThat(validated.bodyNode().asBoolean()).isTrue();
    assertThat(client.refreshToken(generated.getIdentity()).isSuccess()).isTrue();
  }

  @Test
  void uid2sSdk_inTheUid2Profile_getsOptoutForUid2sTestIdentities() {
    PublisherUid2Client client = sdk(uid2, uid2Generator);

    TokenGenerateResponse optout =
        client.generateTokenResponse(TokenGenerateInput.fromEmail("optout@example.com"));
    TokenGenerateResponse refreshOptout =
        client.generateTokenResponse(TokenGenerateInput.fromEmail("refresh-optout@example.com"));

    assertThat(optout.isOptout()).isTrue();
    assertThat(optout.getIdentity()).isNull();
    assertThat(refreshOptout.isSuccess()).isTrue();
    TokenRefreshResponse refreshed = client.refreshToken(refreshOptout.getIdentity());
    assertThat(refreshed.isOptout()).isTrue();
    assertThat(refreshed.getIdentity()).isNull();
  }

  @Test
  void uid2sSdk_inTheUid2Profile_refreshesAnOrdinaryIdentity() {
    PublisherUid2Client client = sdk(uid2, uid2Generator);

    TokenGenerateResponse generated =
        client.generateTokenResponse(TokenGenerateInput.fromEmail("user@example.com"));

    assertThat(generated.isSuccess()).isTrue();
    assertThat(client.refreshToken(generated.getIdentity()).isSuccess()).isTrue();
  }

  /** A hand-made v2 generate for {@code email}; returns the opened answer's body. */
  private static JsonNode generate(String email) throws IOException {
    EnvelopeSecret key = veilGenerator.client().secret().envelopeKey();
    long nonce = 77;
    byte[] sealed =
        V2Envelope.BASE64.sealRequest(
            ("{\"email\":\"" + email + "\",\"optout_check\":1}").getBytes(StandardCharsets.UTF_8),
            nonce,
            key,
            veil.clock().instant(),
            NonceSource.secure());
    Response r =
        veil.post(
            "/v2/token/generate",
            veilGenerator.key().reveal(),
            new String(sealed, StandardCharsets.US_ASCII));
    assertThat(r.code()).as(r.body()).isEqualTo(200);
    JsonNode answer =
        JSON.readTree(
            V2Envelope.BASE64
                .openResponse(r.body().getBytes(StandardCharsets.US_ASCII), key, nonce)
                .payloadBytes());
    assertThat(answer.path("status").asText()).isEqualTo("success");
    return answer.path("body");
  }

  private static byte[] open(String sealed, byte[] key) throws AEADBadTagException {
    byte[] bytes = Base64.getDecoder().decode(sealed);
    return AesGcm.decrypt(
        new SecretKeySpec(key, "AES"),
        Arrays.copyOf(bytes, AesGcm.IV_BYTES),
        bytes,
        AesGcm.IV_BYTES,
        bytes.length - AesGcm.IV_BYTES);
  }

  @Test
  void theRefreshAnswer_opensOnlyWithTheTokensResponseKey_andCarriesTheNextOne() throws Exception {
    JsonNode issued = generate("someone@example.com");
    byte[] key = Base64.getDecoder().decode(issued.path("refresh_response_key").asText());
    byte[] otherKey =
        Base64.getDecoder()
            .decode(generate("someone@example.com").path("refresh_response_key").asText());
    assertThat(key).hasSize(32).isNotEqualTo(otherKey);

    Response r = veil.post("/v2/token/refresh", null, issued.path("refresh_token").asText());

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.header("Content-Type")).startsWith("text/plain");
    JsonNode answer = JSON.readTree(open(r.body(), key));
    assertThat(answer.path("status").asText()).isEqualTo("success");
    assertThat(answer.path("body").path("refresh_response_key").asText())
        .isNotEmpty()
        .isNotEqualTo(issued.path("refresh_response_key").asText());
    assertThatThrownBy(() -> open(r.body(), otherKey)).isInstanceOf(AEADBadTagException.class);
  }

  @Test
  void aRefreshTokenWithAFlippedByte_isA400PlainJsonAnswer() {
    String token =
        veil.get("/v1/token/generate?email=flip@example.com", veilGenerator.key().reveal())
            .bodyNode()
            .path("refresh_token")
            .asText();
    char[] chars = token.toCharArray();
    chars[40] = chars[40] == 'A' ? 'B' : 'A';
    String flipped = new String(chars);

    Response anonymous = veil.post("/v2/token/refresh", null, flipped);
    Response authenticated = veil.post("/v2/token/refresh", veilGenerator.key().reveal(), flipped);
    Response garbage = veil.post("/v2/token/refresh", null, "\u00ff\u0000 not a token");
    Response empty = veil.post("/v2/token/refresh", null, "");

    assertThat(anonymous.code()).isEqualTo(400);
    assertThat(anonymous.header("Content-Type")).startsWith("application/json");
    assertThat(anonymous.status()).isEqualTo("error");
    assertThat(authenticated.code()).isEqualTo(400);
    assertThat(authenticated.status()).isEqualTo("invalid_token");
    assertThat(garbage.code()).isEqualTo(400);
    assertThat(empty.code()).isEqualTo(400);
    assertThat(empty.status()).isEqualTo("client_error");
  }

  @Test
  void v1Refresh_acceptsTheRefreshTokensV2Issues_andAnswersAsBefore() throws IOException {
    JsonNode issued = generate("both@example.com");

    Response r =
        veil.post(
            "/v1/token/refresh",
            null,
            "{\"refresh_token\":\"" + issued.path("refresh_token").asText() + "\"}");

    assertThat(r.code()).isEqualTo(200);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    assertThat(r.body())
        .matches(
            "\\{\"status\":\"success\",\"body\":\\{\"advertising_token\":\"[^\"]+\","
                + "\"refresh_token\":\"[^\"]+\",\"identity_expires\":\\d+,"
                + "\"refresh_from\":\\d+,\"refresh_expires\":\\d+}}");
    Response v1Generate =
        veil.get("/v1/token/generate?email=both@example.com", veilGenerator.key().reveal());
    assertThat(v1Generate.body()).doesNotContain("refresh_response_key");
    // The v1 token refreshes on v2 too.
    Response v2 =
        veil.post("/v2/token/refresh", null, v1Generate.bodyNode().path("refresh_token").asText());
    assertThat(v2.code()).isEqualTo(200);
  }

  @Test
  void generate_needsTheGeneratorRole_andRefreshAnswersCorsPreflights() {
    Response refused = veil.post("/v2/token/generate", veil.newApiKey(Role.MAPPER), "AAAA");
    Response preflight =
        veil.send(
            HttpRequest.newBuilder(veil.uri("/v2/token/refresh"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://publisher.example")
                .header("Access-Control-Request-Method", "POST")
                .build());

    assertThat(refused.code()).isEqualTo(401);
    assertThat(preflight.code()).isEqualTo(204);
    assertThat(preflight.header("Allow")).isEqualTo("POST, OPTIONS");
    assertThat(preflight.header("Access-Control-Allow-Origin")).isEqualTo("*");
  }
}
