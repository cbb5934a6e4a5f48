package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.uid2.client.IdentityMapV3Client;
import com.uid2.client.IdentityMapV3Input;
import com.uid2.client.IdentityMapV3Response;
import com.uid2.client.UnmappedIdentityReason;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http.Response;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v3/identity/map} against UID2's own Java SDK ({@code IdentityMapV3Client}) over real
 * HTTP: per-index answers equal the v1 map's, previous ids after a rotation, refresh times,
 * unmapped reasons, and envelope and body errors as the other v2 endpoints answer them.
 */
class IdentityMapV3IT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private TestNode node;
  private CreatedClient mapper;
  private String secret;

  @BeforeEach
  void start() {
    node = TestNode.start();
    // UID2's SDK stamps its envelopes with the real time, which must be within 2 minutes of the
    // node's clock.
    node.clock().set(Instant.now());
    mapper = node.newClient(Role.MAPPER);
    secret = mapper.client().secret().reveal();
    node.post("/v1/optout", node.newApiKey(Role.OPTOUT), "{\"email\":\"optedout@example.com\"}");
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private IdentityMapV3Response mapWithUid2sClient(IdentityMapV3Input input) {
    return new IdentityMapV3Client("http://127.0.0.1:" + node.port(), mapper.key().reveal(), secret)
        .generateIdentityMap(input);
  }

  private String v1AdvertisingId(String parameter, String value) {
    Response r =
        node.post(
            "/v1/identity/map",
            mapper.key().reveal(),
            "{\"" + parameter + "\":[" + JSON.valueToTree(value) + "]}");
    return r.bodyNode().path("mapped").get(0).path("advertising_id").asText();
  }

  private static List<String> emails(int n) {
    List<String> emails = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      emails.add("user" + i + "@example.com");
    }
    return emails;
  }

  @Test
  void uid2sV3Client_mapsAMixedBatch_asV1Does_withNoPreviousIdAndAFutureRefresh() {
    String phone = "+12345678901";
    String emailHash = TestNode.sha256Base64("hashed@example.com");
    IdentityMapV3Response answer =
        mapWithUid2sClient(
            IdentityMapV3Input.fromEmails(List.of("user@example.com", "Other.User@Example.com"))
                .withPhone(phone)
                .withHashedEmail(emailHash));

    assertThat(answer.isSuccess()).isTrue();
    Map<String, IdentityMapV3Response.MappedIdentity> mapped = answer.getMappedIdentities();
    assertThat(mapped)
        .containsOnlyKeys("user@example.com", "Other.User@Example.com", phone, emailHash);
    assertThat(mapped.get("user@example.com").getCurrentRawUid())
        .isEqualTo(v1AdvertisingId("email", "user@example.com"));
    assertThat(mapped.get("Other.User@Example.com").getCurrentRawUid())
        .isEqualTo(v1AdvertisingId("email", "other.user@example.com"));
    assertThat(mapped.get(phone).getCurrentRawUid()).isEqualTo(v1AdvertisingId("phone", phone));
    assertThat(mapped.get(emailHash).getCurrentRawUid())
        .isEqualTo(v1AdvertisingId("email_hash", emailHash));
    for (IdentityMapV3Response.MappedIdentity m : mapped.values()) {
      assertThat(m.getPreviousRawUid()).isNull();
      assertThat(m.getRefreshFrom()).isAfter(node.clock().instant());
    }
  }

  @Test
  void uid2sV3Client_listsOptOutsAndInvalidIdentifiers_withUid2sReasons() {
    IdentityMapV3Response answer =
        mapWithUid2sClient(
            IdentityMapV3Input.fromEmails(List.of("optedout@example.com", "user@example.com"))
                .withHashedEmail("not a hash")
                .withHashedPhone("AAAA"));

    assertThat(answer.getMappedIdentities()).containsOnlyKeys("user@example.com");
    assertThat(answer.getUnmappedIdentities())
        .containsOnlyKeys("optedout@example.com", "not a hash", "AAAA");
    assertThat(answer.getUnmappedIdentities().get("optedout@example.com").getReason())
        .isEqualTo(UnmappedIdentityReason.OPTOUT);
    assertThat(answer.getUnmappedIdentities().get("not a hash").getReason())
        .isEqualTo(UnmappedIdentityReason.INVALID_IDENTIFIER);
    assertThat(answer.getUnmappedIdentities().get("AAAA").getReason())
        .isEqualTo(UnmappedIdentityReason.INVALID_IDENTIFIER);
  }

  @Test
  void afterARotation_thePreviousIdIsTheOldCurrentId_exactlyForTheRotatedBuckets() {
    List<String> emails = emails(200);
    Map<String, String> before = new HashMap<>();
    mapWithUid2sClient(IdentityMapV3Input.fromEmails(emails))
        .getMappedIdentities()
        .forEach((email, m) -> before.put(email, m.getCurrentRawUid()));
    assertThat(before).hasSize(emails.size());

    node.clock().advance(Duration.ofSeconds(5));
    assertThat(node.services().salts().rotateFraction(0.25)).isPositive();
    node.clock().advance(Duration.ofSeconds(5));
    Map<String, IdentityMapV3Response.MappedIdentity> after =
        mapWithUid2sClient(IdentityMapV3Input.fromEmails(emails)).getMappedIdentities();

    int rotated = 0;
    for (String email : emails) {
      IdentityMapV3Response.MappedIdentity m = after.get(email);
      assertThat(m.getCurrentRawUid()).isEqualTo(v1AdvertisingId("email", email));
      assertThat(m.getRefreshFrom()).isAfter(node.clock().instant());
      if (m.getCurrentRawUid().equals(before.get(email))) {
        assertThat(m.getPreviousRawUid()).as(email).isNull();
      } else {
        rotated++;
        assertThat(m.getPreviousRawUid()).as(email).isEqualTo(before.get(email));
      }
    }
    assertThat(rotated).isBetween(1, emails.size() - 1);
  }

  @Test
  void ninetyDaysAfterARotation_thePreviousIdIsNoLongerGiven_andRefreshStaysAhead()
      throws Exception {
    node.services().salts().rotateFraction(1.0);
    node.clock().advance(Duration.ofDays(91));

    JsonNode entry = mapSealed("{\"email\":[\"user@example.com\"]}").path("email").get(0);

    assertThat(entry.path("u").asText()).isEqualTo(v1AdvertisingId("email", "user@example.com"));
    assertThat(entry.has("p")).isTrue();
    assertThat(entry.path("p").isNull()).isTrue();
    assertThat(entry.path("r").asLong()).isGreaterThan(node.clock().instant().getEpochSecond());
  }

  @Test
  void aHandSealedMixedRequest_answersEveryKindIndexAligned_andEmptyArraysForTheOthers()
      throws Exception {
    node.services().salts().rotateFraction(1.0);
    JsonNode body =
        mapSealed(
            "{\"phone\":[\"+12345678901\",\"123\"],\"email\":[\"optedout@example.com\","
                + "\"a@example.com\"],\"future\":{\"x\":1}}");

    assertThat(body.path("phone").get(0).path("u").asText())
        .isEqualTo(v1AdvertisingId("phone", "+12345678901"));
    assertThat(body.path("phone").get(0).path("p").asText()).hasSize(44);
    assertThat(body.path("phone").get(1).path("e").asText()).isEqualTo("invalid identifier");
    assertThat(body.path("email").get(0).path("e").asText()).isEqualTo("optout");
    assertThat(body.path("email").get(1).path("u").asText())
        .isEqualTo(v1AdvertisingId("email", "a@example.com"));
    assertThat(body.path("email_hash").isArray()).isTrue();
    assertThat(body.path("email_hash")).isEmpty();
    assertThat(body.path("phone_hash")).isEmpty();
  }

  @Test
  void badBodies_areA400WithAClearMessage_neverA5xx() {
    EnvelopeSecret key = EnvelopeSecret.fromBase64(secret);
    assertThat(sealedPost("{\"emails\":[]}", key).message())
        .startsWith("Invalid body: expected an array of email");
    assertThat(sealedPost("{\"email\":\"a@example.com\"}", key).message())
        .isEqualTo("Invalid body: email must be an array of strings");
    assertThat(sealedPost("{\"email\":[],\"email\":[]}", key).message())
        .isEqualTo("Malformed JSON body: a key appears more than once");
    assertThat(sealedPost("{\"phone\":[\"+12345678901\",7]}", key).message())
        .isEqualTo("Invalid body: phone[1] must be a string");
    assertThat(sealedPost("[]", key).message()).isEqualTo("Request body must be a JSON object");
  }

  @Test
  void moreIdentifiersThanTheLimit_acrossKinds_isRefused() {
    Map<String, String> limits = Map.of("limits.max-batch-size", "3");
    node.close();
    node = TestNode.start(limits);
    node.clock().set(Instant.now());
    mapper = node.newClient(Role.MAPPER);
    secret = mapper.client().secret().reveal();

    Response r =
        sealedPost(
            "{\"email\":[\"a@example.com\",\"b@example.com\"],"
                + "\"phone\":[\"+12345678901\",\"+12345678902\"]}",
            EnvelopeSecret.fromBase64(secret));

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.message()).isEqualTo("Too many identifiers: at most 3 per request");
  }

  @Test
  void aBadEnvelope_isA400ClientError_andAnotherRole_a401() {
    Response wrongSecret =
        sealedPost("{\"email\":[\"a@example.com\"]}", EnvelopeSecret.of(new byte[32]));
    assertThat(wrongSecret.code()).isEqualTo(400);
    assertThat(wrongSecret.status()).isEqualTo("client_error");
    assertThat(wrongSecret.message()).startsWith("Invalid body");

    Response notBase64 = node.post("/v3/identity/map", mapper.key().reveal(), "!!!");
    assertThat(notBase64.code()).isEqualTo(400);

    Response generator =
        node.post(
            "/v3/identity/map",
            node.newApiKey(Role.GENERATOR),
            seal("{\"email\":[]}", EnvelopeSecret.fromBase64(secret), 1));
    assertThat(generator.code()).isEqualTo(401);
  }

  @Test
  void aBinaryEnvelope_isAnsweredInBinary_andBadBinaryBodiesAreA400() throws Exception {
    EnvelopeSecret key = EnvelopeSecret.fromBase64(secret);
    byte[] sealed =
        V2Envelope.BINARY.sealRequest(
            "{\"email\":[\"user@example.com\"]}".getBytes(StandardCharsets.UTF_8),
            9,
            key,
            node.clock().instant(),
            NonceSource.secure());

    HttpResponse<byte[]> ok = postBinary(sealed);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.headers().firstValue("content-type")).contains("application/octet-stream");
    JsonNode answer =
        JSON.readTree(V2Envelope.BINARY.openResponse(ok.body(), key, 9).payloadBytes());
    assertThat(answer.path("body").path("email").get(0).path("u").asText())
        .isEqualTo(v1AdvertisingId("email", "user@example.com"));

    assertThat(postBinary(new byte[] {1, 2, 3}).statusCode()).isEqualTo(400);
    sealed[sealed.length - 1] ^= 1;
    HttpResponse<byte[]> tampered = postBinary(sealed);
    assertThat(tampered.statusCode()).isEqualTo(400);
    assertThat(new String(tampered.body(), StandardCharsets.UTF_8))
        .contains("Check encryption key");
  }

  private HttpResponse<byte[]> postBinary(byte[] body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(node.uri("/v3/identity/map"))
            .header("Authorization", "Bearer " + mapper.key().reveal())
            .header("Content-Type", "application/octet-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofByteArray());
  }

  private String seal(String json, EnvelopeSecret key, long nonce) {
    byte[] sealed =
        V2Envelope.BASE64.sealRequest(
            json.getBytes(StandardCharsets.UTF_8),
            nonce,
            key,
            node.clock().instant(),
            NonceSource.secure());
    return new String(sealed, StandardCharsets.US_ASCII);
  }

  private Response sealedPost(String json, EnvelopeSecret key) {
    Response r = node.post("/v3/identity/map", mapper.key().reveal(), seal(json, key, 3));
    assertThat(r.code()).as(r.body()).isLessThan(500);
    return r;
  }

  /** The opened answer's {@code body} to a sealed request. */
  private JsonNode mapSealed(String json) throws Exception {
    EnvelopeSecret key = EnvelopeSecret.fromBase64(secret);
    Response r = node.post("/v3/identity/map", mapper.key().reveal(), seal(json, key, 42));
    assertThat(r.code()).as(r.body()).isEqualTo(200);
    byte[] opened =
        V2Envelope.BASE64
            .openResponse(r.body().getBytes(StandardCharsets.US_ASCII), key, 42)
            .payloadBytes();
    JsonNode answer = JSON.readTree(opened);
    assertThat(answer.path("status").asText()).isEqualTo("success");
    return answer.path("body");
  }
}
