package dev.veil.uid2;

import static dev.veil.testing.Http.encode;
import static dev.veil.uid2.BucketsV2Wire.PATH;
import static dev.veil.uid2.BucketsV2Wire.seal;
import static dev.veil.uid2.BucketsV2Wire.since;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Http;
import dev.veil.testing.Http.Response;
import dev.veil.testing.TestConfigs;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code POST /v2/identity/buckets} over real HTTP: the answer, opened with the client's secret by
 * the JDK alone, is v1's answer for the same {@code since_timestamp}, byte for byte, and every
 * refusal is the one the other v2 endpoints or v1 give. The large and slow answers are in {@link
 * IdentityBucketsV2StreamIT}.
 */
class IdentityBucketsV2IT {
  private static final long NONCE = 0x0bad_cafe_f00d_beefL;
  private static TestNode node;
  private static CreatedClient mapper;

  /** A quarter of the buckets rotated a day after creation, an eighth more an hour later. */
  @BeforeAll
  static void start() {
    node = TestNode.start();
    mapper = node.newClient(Role.MAPPER);
    node.clock().advance(Duration.ofDays(1));
    node.services().salts().rotateFraction(0.25);
    node.clock().advance(Duration.ofHours(1));
    node.services().salts().rotateFraction(0.125);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static Response v2(CreatedClient client, String body) {
    return node.post(PATH, client.key().reveal(), body);
  }

  private static Response v2(String json) {
    return v2(mapper, seal(node, mapper, json, NONCE));
  }

  private static String opened(Response sealed) {
    assertThat(sealed.code()).as(sealed.body()).isEqualTo(200);
    byte[] text = sealed.body().getBytes(StandardCharsets.US_ASCII);
    return new String(BucketsV2Wire.open(text, node, mapper, NONCE), StandardCharsets.UTF_8);
  }

  private static Response v1(String since) {
    return node.get("/v1/identity/buckets?since_timestamp=" + encode(since), mapper.key().reveal());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2025-03-01T11:59:59",
        "2025-03-01T12:00:00",
        "2025-03-02T11:59",
        "2025-03-02T12:00:00",
        "2025-03-02T12:30:00.5Z",
        "1740916800",
        "2025-03-02T13:00:00"
      })
  void theOpenedAnswer_isV1sAnswerForTheSameSince_byteForByte(String since) {
    String v2 = opened(v2(since(since)));

    Response v1 = v1(since);
    assertThat(v1.code()).isEqualTo(200);
    assertThat(v2).isEqualTo(v1.body());
  }

  @Test
  void afterTheRotations_theListIsNeitherEmptyNorFull_andOrderedByLastUpdated() {
    Response v1 = v1("2025-03-01T12:00:00");
    int rotated = v1.bodyNode().size();

    assertThat(rotated).isEqualTo(TestConfigs.BUCKETS / 4 + TestConfigs.BUCKETS / 8);
    assertThat(opened(v2(since("2025-03-01T12:00:00")))).isEqualTo(v1.body());
    assertThat(v1.bodyNode().get(0).path("last_updated").asText()).isEqualTo("2025-03-02T12:00:00");
    assertThat(v1.bodyNode().get(rotated - 1).path("last_updated").asText())
        .isEqualTo("2025-03-02T13:00:00");
  }

  @Test
  void theAnswer_isStreamedAsSealedText_withTheHeadersOfOtherSealedAnswers() {
    Response buckets = v2(since("0"));
    Response map = node.post(PATH.replace("buckets", "map"), mapper.key().reveal(), mapBody());

    assertThat(buckets.code()).isEqualTo(200);
    assertThat(map.code()).isEqualTo(200);
    assertThat(buckets.header("Content-Type"))
        .isEqualTo(map.header("Content-Type"))
        .isEqualTo("text/plain; charset=us-ascii");
    assertThat(buckets.header("Transfer-Encoding")).isEqualTo("chunked");
    assertThat(buckets.body()).matches("[A-Za-z0-9+/]+={0,2}");
  }

  private static String mapBody() {
    return seal(node, mapper, "{\"email\":[\"user@example.com\"]}", NONCE);
  }

  @Test
  void withoutSinceTimestamp_isV1sMessage_inPlainJson() {
    Response r = v2("{}");

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    assertThat(r.status()).isEqualTo("client_error");
    assertThat(r.message()).isEqualTo("Required Parameter Missing: since_timestamp");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "yesterday",
        "1740830400000",
        "-5",
        "2025-13-01T00:00:00",
        "2025-03-01",
        "2025-03-01 12:00:00",
        "10000-01-01T00:00:00",
        "2025-03-01T12:00:00+01:00",
        "1.5"
      })
  void anUnreadableSinceTimestamp_isV1sMessage_inPlainJson(String since) {
    Response r = v2(since(since));

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    assertThat(r.status()).isEqualTo("client_error");
    assertThat(r.message()).isEqualTo(v1(since).message());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"since_timestamp\":1740830400} | Invalid parameter: since_timestamp must be a string",
        "[] | Request body must be a JSON object",
        "{\"since_timestamp\":\"0\" | Malformed JSON body: unexpected end of input",
        "{\"since_timestamp\":\"0\",\"since_timestamp\":\"1\"}"
            + " | Malformed JSON body: a key appears more than once"
      })
  void aBodyThatIsNotOneObjectWithAString_isRefusedWithTheMessageOfV1sJsonBodies(
      String json, String message) {
    Response r = v2(json);

    assertThat(r.code()).isEqualTo(400);
    assertThat(r.status()).isEqualTo("client_error");
    assertThat(r.message()).isEqualTo(message);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "empty",
        "not base64",
        "short",
        "wrong version",
        "wrong secret",
        "stale",
        "future",
        "flipped byte"
      })
  void aBadEnvelope_isRefusedExactlyAsV2MapRefusesIt_neverA5xx(String what) {
    String good = seal(node, mapper, since("0"), NONCE);
    String body =
        switch (what) {
          case "empty" -> "";
          case "not base64" -> "!!" + good;
          case "short" -> Base64.getEncoder().encodeToString(new byte[20]);
          case "wrong version" -> changed(good, 0, 1);
          case "wrong secret" ->
              new String(
                  V2Envelope.BASE64.sealRequest(
                      since("0").getBytes(StandardCharsets.UTF_8),
                      NONCE,
                      EnvelopeSecret.of(new byte[32]),
                      node.clock().instant(),
                      NonceSource.secure()),
                  StandardCharsets.US_ASCII);
          case "stale" -> sealedAt(node.clock().instant().minus(Duration.ofMinutes(3)));
          case "future" -> sealedAt(node.clock().instant().plus(Duration.ofMinutes(3)));
          default -> changed(good, 30, 0x01);
        };

    Response buckets = v2(mapper, body);
    Response map = node.post(PATH.replace("buckets", "map"), mapper.key().reveal(), body);

    assertThat(buckets.code()).as(buckets.body()).isEqualTo(map.code()).isEqualTo(400);
    assertThat(buckets.body()).isEqualTo(map.body());
    assertThat(buckets.header("Content-Type")).isEqualTo(map.header("Content-Type"));
    assertThat(buckets.status()).isEqualTo("client_error");
    assertThat(buckets.message())
        .isEqualTo(
            switch (what) {
              case "empty" -> "Invalid body: Body is missing.";
              case "not base64" -> "Invalid body: Body is not valid base64.";
              case "short" -> "Invalid body: Body too short. Check encryption method.";
              case "wrong version" ->
                  "Invalid body: Invalid request envelope format version: must be 1.";
              case "stale", "future" -> "Invalid timestamp: Request too old or client time drift.";
              default -> "Invalid body: Check encryption key (ClientSecret).";
            });
  }

  /** {@code base64} with byte {@code at} of what it encodes XORed with {@code mask}. */
  private static String changed(String base64, int at, int mask) {
    byte[] raw = Base64.getDecoder().decode(base64);
    raw[at] ^= (byte) mask;
    return Base64.getEncoder().encodeToString(raw);
  }

  private static String sealedAt(Instant when) {
    return new String(
        V2Envelope.BASE64.sealRequest(
            since("0").getBytes(StandardCharsets.UTF_8),
            NONCE,
            mapper.client().secret().envelopeKey(),
            when,
            NonceSource.secure()),
        StandardCharsets.US_ASCII);
  }

  @Test
  void withoutTheMapperRole_orWithoutAKey_isRefusedBeforeTheEnvelopeIsOpened() {
    CreatedClient generator = node.newClient(Role.GENERATOR);

    Response wrongRole = v2(generator, seal(node, generator, since("0"), NONCE));
    Response noKey = node.post(PATH, null, seal(node, mapper, since("0"), NONCE));

    assertThat(wrongRole.code()).isEqualTo(401);
    assertThat(wrongRole.status()).isEqualTo("unauthorized");
    assertThat(noKey.code()).isEqualTo(401);
  }

  @Test
  void get_isNotServed() {
    Response r = node.get(PATH, mapper.key().reveal());

    assertThat(r.code()).isEqualTo(405);
    assertThat(r.header("Allow")).isEqualTo("POST");
  }

  @Test
  void aChunkedRequest_isAnswered_andItsConnectionClosesAfterTheAnswer() {
    byte[] body = seal(node, mapper, since("0"), NONCE).getBytes(StandardCharsets.US_ASCII);
    Response r =
        node.send(
            HttpRequest.newBuilder(node.uri(PATH))
                .header("Authorization", Http.bearer(mapper.key().reveal()))
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                .build());

    assertThat(opened(r)).isEqualTo(v1("0").body());
    assertThat(r.header("Connection")).isEqualTo("close");
  }
}
