package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Broken v2 requests over real HTTP: every changed byte of a request envelope and of a refresh
 * token, times outside the window and wrong secrets get the documented 400 (docs/http-api.md, "The
 * v2 API"), as plain JSON, and never a 5xx.
 */
class EnvelopeSweepV2IT {
  private static final String GENERATE_JSON = "{\"email\":\"sweep@example.com\"}";
  private static final Set<String> ENVELOPE_MESSAGES =
      Set.of(
          "Invalid body: Body is not valid base64.",
          "Invalid body: Body too short. Check encryption method.",
          "Invalid body: Invalid request envelope format version: must be 1.",
          "Invalid body: Check encryption key (ClientSecret).",
          "Invalid timestamp: Request too old or client time drift.");

  private static TestNode node;
  private static CreatedClient generator;
  private static CreatedClient other;

  @BeforeAll
  static void start() {
    node = TestNode.start();
    generator = node.newClient(Role.GENERATOR, Role.ID_READER);
    other = node.newClient(Role.GENERATOR);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static byte[] seal(CreatedClient client, String json, Instant at) {
    byte[] text =
        V2Envelope.BASE64.sealRequest(
            json.getBytes(StandardCharsets.UTF_8),
            42L,
            client.client().secret().envelopeKey(),
            at,
            NonceSource.secure());
    return Base64.getDecoder().decode(text);
  }

  private static Response post(String path, CreatedClient client, byte[] envelope) {
    return node.post(path, client.key().reveal(), Base64.getEncoder().encodeToString(envelope));
  }

  private static void assertDocumentedRefusal(Response r, String what) {
    assertThat(r.code()).as(what + ": " + r.body()).isEqualTo(400);
    assertThat(r.header("Content-Type")).as(what).startsWith("application/json");
    assertThat(r.status()).as(what).isEqualTo("client_error");
    assertThat(r.message()).as(what).isIn(ENVELOPE_MESSAGES);
  }

  @Test
  void everyChangedByteOfARequestEnvelope_isADocumented400() {
    byte[] sealed = seal(generator, GENERATE_JSON, node.clock().instant());
    assertThat(post("/v2/token/generate", generator, sealed).code()).isEqualTo(200);

    for (int i = 0; i < sealed.length; i++) {
      for (int flip : new int[] {0x01, 0x80}) {
        byte[] changed = sealed.clone();
        changed[i] ^= (byte) flip;
        assertDocumentedRefusal(
            post("/v2/token/generate", generator, changed), "byte " + i + " xor " + flip);
      }
    }
    assertDocumentedRefusal(
        post("/v2/key/bidstream", generator, new byte[] {1, 2, 3}), "a three-byte envelope");
  }

  @Test
  void timesOutsideTheWindow_areRefused_andTimesInsideAreServed() {
    Instant now = node.clock().instant();
    for (Duration off : new Duration[] {Duration.ofMinutes(-2), Duration.ofMinutes(2)}) {
      Response r =
          post("/v2/token/generate", generator, seal(generator, GENERATE_JSON, now.plus(off)));
      assertDocumentedRefusal(r, "request time off by " + off);
      assertThat(r.message()).isEqualTo("Invalid timestamp: Request too old or client time drift.");
    }
    for (Duration off : new Duration[] {Duration.ofSeconds(-119), Duration.ofSeconds(119)}) {
      assertThat(
              post("/v2/token/generate", generator, seal(generator, GENERATE_JSON, now.plus(off)))
                  .code())
          .as("request time off by " + off)
          .isEqualTo(200);
    }
  }

  @Test
  void anotherClientsSecret_isRefused_withUid2sMessage() {
    byte[] sealedByOther = seal(other, GENERATE_JSON, node.clock().instant());

    Response r = post("/v2/token/generate", generator, sealedByOther);

    assertDocumentedRefusal(r, "sealed with another client's secret");
    assertThat(r.message()).isEqualTo("Invalid body: Check encryption key (ClientSecret).");
  }

  @Test
  void everyChangedCharacterOfARefreshToken_isA400_neverA5xx() {
    String token =
        node.get("/v1/token/generate?email=sweep@example.com", generator.key().reveal())
            .bodyNode()
            .path("refresh_token")
            .asText();
    char[] chars = token.toCharArray();
    for (int i = 0; i < chars.length; i++) {
      char[] changed = chars.clone();
      changed[i] = changed[i] == 'A' ? 'B' : 'A';
      Response r = node.post("/v2/token/refresh", generator.key().reveal(), new String(changed));
      assertThat(r.code()).as("character " + i + ": " + r.body()).isEqualTo(400);
      assertThat(r.header("Content-Type")).startsWith("application/json");
      assertThat(r.status()).as("character " + i).isIn("invalid_token", "client_error");
    }
  }

  @Test
  void theEnvelopeKeyOfARotatedSecret_isRefusedAtOnce() {
    CreatedClient rotating = node.newClient(Role.GENERATOR);
    EnvelopeSecret old = rotating.client().secret().envelopeKey();
    byte[] sealedWithOld =
        Base64.getDecoder()
            .decode(
                V2Envelope.BASE64.sealRequest(
                    GENERATE_JSON.getBytes(StandardCharsets.UTF_8),
                    7L,
                    old,
                    node.clock().instant(),
                    NonceSource.secure()));

    node.services().clients().rotateSecret(rotating.client().id());

    assertDocumentedRefusal(
        post("/v2/token/generate", rotating, sealedWithOld), "sealed with a replaced secret");
  }

  /**
   * A body over the size limit is refused before its envelope is opened; on the v2 and v3 routes
   * the refusal is spelled as UID2 spells it, as every other refusal there is, while a v1 route
   * keeps the server's profile (this node's default, clienterror).
   */
  @Test
  void aBodyOverTheLimit_isA413_spelledAsUid2OnV2AndV3Routes() {
    String tooLarge = "A".repeat(1_048_577);
    CreatedClient mapper = node.newClient(Role.MAPPER, Role.GENERATOR);
    for (String path :
        new String[] {"/v2/token/generate", "/v2/identity/map", "/v3/identity/map"}) {
      Response r = node.post(path, mapper.key().reveal(), tooLarge);
      assertThat(r.code()).as(path + ": " + r.body()).isEqualTo(413);
      assertThat(r.status()).as(path).isEqualTo("client_error");
      assertThat(r.message()).as(path).isEqualTo("Request body too large: at most 1048576 bytes");
    }
    Response v1 = node.post("/v1/identity/map", mapper.key().reveal(), tooLarge);
    assertThat(v1.code()).isEqualTo(413);
    assertThat(v1.status()).isEqualTo("clienterror");
  }
}
