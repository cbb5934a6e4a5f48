package dev.veil.core.envelope;

import static dev.veil.core.envelope.V2Envelope.BASE64;
import static dev.veil.core.envelope.V2Envelope.BINARY;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.veil.core.crypto.AesGcm;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeException.Reason;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class V2EnvelopeTest {
  private static final byte[] SECRET_BYTES = filled(32, 0x5A);
  private static final EnvelopeSecret SECRET = EnvelopeSecret.of(SECRET_BYTES);
  private static final EnvelopeSecret OTHER_SECRET = EnvelopeSecret.of(filled(32, 0x5B));
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00.250Z");
  private static final Duration SKEW = Duration.ofSeconds(5);
  private static final long NONCE = 0x0123_4567_89AB_CDEFL;
  private static final byte[] PAYLOAD = "{\"email_hash\":\"abc=\"}".getBytes(UTF_8);
  private static final NonceSource IV_SEVENS = iv -> Arrays.fill(iv, (byte) 7);

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void request_roundTrips(V2Envelope wire) {
    byte[] body = wire.sealRequest(PAYLOAD, NONCE, SECRET, NOW, NonceSource.secure());

    OpenedEnvelope opened = wire.openRequest(body, SECRET, NOW, SKEW);

    assertThat(opened.timestamp()).isEqualTo(NOW);
    assertThat(opened.timestampMillis()).isEqualTo(NOW.toEpochMilli());
    assertThat(opened.nonce()).isEqualTo(NONCE);
    assertThat(opened.payloadBytes()).isEqualTo(PAYLOAD);
    assertThat(opened.payloadLength()).isEqualTo(PAYLOAD.length);
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void response_roundTrips(V2Envelope wire) {
    Instant later = NOW.plusSeconds(1);
    byte[] body = wire.sealResponse(PAYLOAD, NONCE, SECRET, later, NonceSource.secure());

    OpenedEnvelope opened = wire.openResponse(body, SECRET, NONCE);

    assertThat(opened.timestamp()).isEqualTo(later);
    assertThat(opened.nonce()).isEqualTo(NONCE);
    assertThat(opened.payloadBytes()).isEqualTo(PAYLOAD);
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void emptyPayload_roundTripsBothWays(V2Envelope wire) {
    byte[] request = wire.sealRequest(new byte[0], NONCE, SECRET, NOW, IV_SEVENS);
    byte[] response = wire.sealResponse(new byte[0], NONCE, SECRET, NOW, IV_SEVENS);

    assertThat(wire.openRequest(request, SECRET, NOW, SKEW).payloadLength()).isZero();
    assertThat(wire.openResponse(response, SECRET, NONCE).payloadBytes()).isEmpty();
    assertThat(decoded(wire, request)).hasSize(V2Envelope.MIN_REQUEST_BYTES);
    assertThat(decoded(wire, response)).hasSize(V2Envelope.MIN_RESPONSE_BYTES);
  }

  @Test
  void sealRequest_writesTheDocumentedLayout_asAPlainJceCipherWould() throws Exception {
    byte[] iv = HexFormat.of().parseHex("000102030405060708090a0b");
    byte[] body = BASE64.sealRequest(PAYLOAD, NONCE, SECRET, NOW, fixed(iv));

    byte[] raw = Base64.getDecoder().decode(body);

    byte[] plain =
        ByteBuffer.allocate(16 + PAYLOAD.length)
            .putLong(NOW.toEpochMilli())
            .putLong(NONCE)
            .put(PAYLOAD)
            .array();
    byte[] expected =
        ByteBuffer.allocate(1 + 12 + plain.length + 16)
            .put((byte) 1)
            .put(iv)
            .put(referenceEncrypt(iv, plain))
            .array();
    assertThat(raw).isEqualTo(expected);
    assertThat(new String(body, US_ASCII)).isEqualTo(Base64.getEncoder().encodeToString(expected));
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void refreshAnswer_isTheIvThenThePayloadAloneEncrypted_andOpensOnlyWithItsKey(V2Envelope wire)
      throws Exception {
    byte[] body = wire.sealRefreshAnswer(PAYLOAD, SECRET, NonceSource.secure());
    byte[] raw = wire == V2Envelope.BASE64 ? Base64.getDecoder().decode(body) : body;

    assertThat(raw).hasSize(AesGcm.IV_BYTES + PAYLOAD.length + AesGcm.TAG_BYTES);
    Cipher jce = Cipher.getInstance("AES/GCM/NoPadding");
    jce.init(
        Cipher.DECRYPT_MODE,
        new SecretKeySpec(SECRET_BYTES, "AES"),
        new GCMParameterSpec(128, raw, 0, AesGcm.IV_BYTES));
    assertThat(jce.doFinal(raw, AesGcm.IV_BYTES, raw.length - AesGcm.IV_BYTES)).isEqualTo(PAYLOAD);
    assertThat(wire.openRefreshAnswer(body, SECRET)).isEqualTo(PAYLOAD);
    assertThatThrownBy(() -> wire.openRefreshAnswer(body, OTHER_SECRET))
        .isInstanceOfSatisfying(
            EnvelopeException.class,
            e -> assertThat(e.reason()).isEqualTo(EnvelopeException.Reason.CANNOT_DECRYPT));
  }

  @Test
  void sealResponse_writesTheDocumentedLayout_withoutVersionByte() throws Exception {
    byte[] iv = HexFormat.of().parseHex("a0a1a2a3a4a5a6a7a8a9aaab");
    byte[] raw = BINARY.sealResponse(PAYLOAD, NONCE, SECRET, NOW, fixed(iv));

    byte[] plain =
        ByteBuffer.allocate(16 + PAYLOAD.length)
            .putLong(NOW.toEpochMilli())
            .putLong(NONCE)
            .put(PAYLOAD)
            .array();
    byte[] expected =
        ByteBuffer.allocate(12 + plain.length + 16)
            .put(iv)
            .put(referenceEncrypt(iv, plain))
            .array();
    assertThat(raw).isEqualTo(expected);
    assertThat(BASE64.sealResponse(PAYLOAD, NONCE, SECRET, NOW, fixed(iv)))
        .isEqualTo(Base64.getEncoder().encode(expected));
  }

  @Test
  void openRequest_readsAnEnvelopeFromUid2sOperatorTests() {
    // A request envelope and client secret from the unit tests of UID2's operator
    // (uid2-operator, V2RequestUtilTest), which its parser accepts at 2024-03-20T04:02:46.130Z.
    // The JSON was piped through echo: it ends with a newline.
    String body =
        "ATDX9gBKxgQaLwUi9ZDbSqo1b66u55jEN322XSR+aCvOy/c3ZiaVOh8VG22pDUSSNaUqfUwwxxYT0pS9"
            + "zjW7oVPCeluHU5GCc+6A+LUTIQ8vOR+1CN7ds/61Bp82RzKf5wPABMNtqr1XkoN6d5FU/R0vpxf2hfo1"
            + "cYYmW0ziCy15pPh17GN2vNTn6YK6g+MAi/dDC7mG+Mxnh9ZaEz+3IetgDPWfp5zHh/T3LWhDAA+2drlD"
            + "n8KwcQE/TYKh5raR4BDHmhgBUCU6+nymoWruNYxzcII63xMTLMTGzpinNnTL3iBPII9lKRJJ2ZrGjjgM"
            + "MXi066iaDDpBHH3xY+bAwriU+6GEsE8bveRMwRqT83gmkYp6mn+75Yrpdw==";
    EnvelopeSecret secret =
        EnvelopeSecret.fromBase64("YGdzZw9oM2RzBgB8THMyAEe408lvdfsTsGteaLAGayY=");
    Instant sealedAt = Instant.parse("2024-03-20T04:02:46.130Z");

    OpenedEnvelope opened =
        BASE64.openRequest(body.getBytes(US_ASCII), secret, sealedAt, Duration.ZERO);

    assertThat(opened.timestamp()).isEqualTo(sealedAt);
    assertThat(opened.nonce()).isEqualTo(0x30e8280192351c0cL);
    assertThat(new String(opened.payloadBytes(), UTF_8))
        .startsWith("{\"token\": \"AdvertisingTokenmZ4dZgeuXXl6DhoXqbRXQbHlHhA96leN94U1")
        .endsWith(", \"email_hash\": \"LdhtUlMQ58ZZy5YUqGPRQw5xUMS5dXG5ocJHYJHbAKI=\"}\n");
    assertThatThrownBy(
            () ->
                BASE64.openRequest(
                    body.getBytes(US_ASCII), secret, sealedAt.plusSeconds(120), SKEW))
        .isInstanceOf(EnvelopeException.class);
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void everyAlteredByteOfARequest_isRefused_asBadVersionOrCannotDecrypt(V2Envelope wire) {
    byte[] raw = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);

    for (int i = 0; i < raw.length; i++) {
      for (int flip : new int[] {0x01, 0x80, 0xFF}) {
        byte[] altered = raw.clone();
        altered[i] ^= (byte) flip;

        Reason reason = reasonOf(() -> wire.openRequest(encoded(wire, altered), SECRET, NOW, SKEW));

        assertThat(reason)
            .as("byte %d xor %02x", i, flip)
            .isEqualTo(i == 0 ? Reason.BAD_VERSION : Reason.CANNOT_DECRYPT);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void everyAlteredByteOfAResponse_isRefused_asCannotDecrypt(V2Envelope wire) {
    byte[] raw = BINARY.sealResponse(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);

    for (int i = 0; i < raw.length; i++) {
      byte[] altered = raw.clone();
      altered[i] ^= 0x10;

      Reason reason = reasonOf(() -> wire.openResponse(encoded(wire, altered), SECRET, NONCE));

      assertThat(reason).as("byte %d", i).isEqualTo(Reason.CANNOT_DECRYPT);
    }
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void requestCutAtEveryLength_isTooShortBelow45Bytes_andCannotDecryptAbove(V2Envelope wire) {
    byte[] raw = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);

    for (int length = 0; length < raw.length; length++) {
      byte[] cut = Arrays.copyOf(raw, length);

      Reason reason = reasonOf(() -> wire.openRequest(encoded(wire, cut), SECRET, NOW, SKEW));

      assertThat(reason)
          .as("first %d bytes", length)
          .isEqualTo(length < 45 ? Reason.TOO_SHORT : Reason.CANNOT_DECRYPT);
    }
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void responseCutAtEveryLength_isTooShortBelow44Bytes_andCannotDecryptAbove(V2Envelope wire) {
    byte[] raw = BINARY.sealResponse(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);

    for (int length = 0; length < raw.length; length++) {
      byte[] cut = Arrays.copyOf(raw, length);

      Reason reason = reasonOf(() -> wire.openResponse(encoded(wire, cut), SECRET, NONCE));

      assertThat(reason)
          .as("first %d bytes", length)
          .isEqualTo(length < 44 ? Reason.TOO_SHORT : Reason.CANNOT_DECRYPT);
    }
  }

  @Test
  void base64TextCutAtEveryLength_isRefusedWithAReason_neverAnotherException() {
    byte[] text = BASE64.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);
    Set<Reason> seen = EnumSet.noneOf(Reason.class);

    for (int length = 0; length < text.length; length++) {
      byte[] cut = Arrays.copyOf(text, length);

      Reason reason = reasonOf(() -> BASE64.openRequest(cut, SECRET, NOW, SKEW));

      assertThat(reason)
          .as("first %d characters", length)
          .isIn(Reason.BAD_BASE64, Reason.TOO_SHORT, Reason.CANNOT_DECRYPT);
      if (length % 4 == 1) {
        assertThat(reason).as("first %d characters", length).isEqualTo(Reason.BAD_BASE64);
      }
      seen.add(reason);
    }
    assertThat(seen)
        .containsExactlyInAnyOrder(Reason.BAD_BASE64, Reason.TOO_SHORT, Reason.CANNOT_DECRYPT);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "not base64!",
        "AQID BAU=",
        "AQIDBAU=\n",
        "AQIDBAU=\r\n",
        "AQIDBA-_",
        "AQIDBAU==",
        "AQIDBAU=A",
        "A",
        "AQIDBAU\u00e9",
        "=AAA"
      })
  void bodyThatIsNotStandardBase64_isBadBase64(String text) {
    byte[] body = text.getBytes(UTF_8);

    assertThat(reasonOf(() -> BASE64.openRequest(body, SECRET, NOW, SKEW)))
        .isEqualTo(Reason.BAD_BASE64);
    assertThat(reasonOf(() -> BASE64.openResponse(body, SECRET, NONCE)))
        .isEqualTo(Reason.BAD_BASE64);
  }

  @Test
  void base64WithoutPadding_isReadAsTheJdkDecoderReadsIt() {
    byte[] payload = "[10]".getBytes(UTF_8); // 49 bytes sealed: two padding characters
    byte[] padded = BASE64.sealRequest(payload, NONCE, SECRET, NOW, IV_SEVENS);
    String text = new String(padded, US_ASCII);
    assertThat(text).endsWith("==");

    byte[] unpadded = text.replace("=", "").getBytes(US_ASCII);

    assertThat(BASE64.openRequest(unpadded, SECRET, NOW, SKEW).payloadBytes()).isEqualTo(payload);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2, 0x41, 0xFF})
  void requestWithAnotherVersionByte_isBadVersion(int version) {
    byte[] raw = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);
    raw[0] = (byte) version;

    assertThat(reasonOf(() -> BINARY.openRequest(raw, SECRET, NOW, SKEW)))
        .isEqualTo(Reason.BAD_VERSION);
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void anotherClientsSecret_cannotDecrypt(V2Envelope wire) {
    byte[] request = wire.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);
    byte[] response = wire.sealResponse(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);

    assertThat(reasonOf(() -> wire.openRequest(request, OTHER_SECRET, NOW, SKEW)))
        .isEqualTo(Reason.CANNOT_DECRYPT);
    assertThat(reasonOf(() -> wire.openResponse(response, OTHER_SECRET, NONCE)))
        .isEqualTo(Reason.CANNOT_DECRYPT);
  }

  @Test
  void responseReadAsARequest_orRequestAsAResponse_isRefused() {
    byte[] response = BINARY.sealResponse(PAYLOAD, NONCE, SECRET, NOW, fixed(new byte[12]));
    byte[] request = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);

    // A response starts with its IV: a first byte of 0 is no version.
    assertThat(reasonOf(() -> BINARY.openRequest(response, SECRET, NOW, SKEW)))
        .isEqualTo(Reason.BAD_VERSION);
    assertThat(reasonOf(() -> BINARY.openResponse(request, SECRET, NONCE)))
        .isEqualTo(Reason.CANNOT_DECRYPT);
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void responseWithAnotherNonce_isRefused(V2Envelope wire) {
    byte[] response = wire.sealResponse(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);

    for (long other : new long[] {NONCE + 1, NONCE ^ Long.MIN_VALUE, 0, -1}) {
      assertThat(reasonOf(() -> wire.openResponse(response, SECRET, other)))
          .isEqualTo(Reason.NONCE_MISMATCH);
    }
  }

  @Test
  void timestamp_atEitherEdgeOfTheSkew_isAccepted_oneMillisecondBeyond_isRefused() {
    long now = NOW.toEpochMilli();

    assertThat(openAt(now - 5_000).timestampMillis()).isEqualTo(now - 5_000);
    assertThat(openAt(now + 5_000).timestampMillis()).isEqualTo(now + 5_000);
    assertThat(openAt(now).timestampMillis()).isEqualTo(now);
    assertThat(reasonOf(() -> openAt(now - 5_001))).isEqualTo(Reason.STALE);
    assertThat(reasonOf(() -> openAt(now + 5_001))).isEqualTo(Reason.FUTURE);
  }

  @Test
  void timestamp_isComparedWithNowTruncatedToTheMillisecond() {
    Instant nowWithNanos = NOW.plusNanos(999_999);
    byte[] body = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW.minusMillis(5_000), IV_SEVENS);

    assertThat(BINARY.openRequest(body, SECRET, nowWithNanos, SKEW).payloadBytes())
        .isEqualTo(PAYLOAD);
  }

  @Test
  void uid2AllowedSkew_acceptsWhatUid2sOperatorAccepts_andRefusesTwoMinutesEitherWay() {
    long now = NOW.toEpochMilli();
    Duration skew = V2Envelope.UID2_ALLOWED_SKEW;

    // The operator accepts up to 119,999 ms old and up to 119,000 ms ahead.
    assertThat(openAt(now - 119_999, skew).timestampMillis()).isEqualTo(now - 119_999);
    assertThat(openAt(now + 119_000, skew).timestampMillis()).isEqualTo(now + 119_000);
    assertThat(openAt(now + 119_999, skew).timestampMillis()).isEqualTo(now + 119_999);
    assertThat(reasonOf(() -> openAt(now - 120_000, skew))).isEqualTo(Reason.STALE);
    assertThat(reasonOf(() -> openAt(now + 120_000, skew))).isEqualTo(Reason.FUTURE);
  }

  @Test
  void timestampsAtTheEndsOfTheLongRange_areRefused_withoutOverflow() {
    assertThat(reasonOf(() -> openAt(Long.MIN_VALUE))).isEqualTo(Reason.STALE);
    assertThat(reasonOf(() -> openAt(Long.MAX_VALUE))).isEqualTo(Reason.FUTURE);
    assertThat(reasonOf(() -> openAt(-1))).isEqualTo(Reason.STALE);

    // A skew beyond the long range reaches as far as a long does, either way.
    Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
    long farthestPast = NOW.toEpochMilli() - Long.MAX_VALUE;
    assertThat(openAt(farthestPast, forever).timestampMillis()).isEqualTo(farthestPast);
    assertThat(openAt(Long.MAX_VALUE, forever).timestampMillis()).isEqualTo(Long.MAX_VALUE);
    assertThat(reasonOf(() -> openAt(Long.MIN_VALUE, forever))).isEqualTo(Reason.STALE);
  }

  @Test
  void zeroSkew_acceptsOnlyTheSameMillisecond() {
    long now = NOW.toEpochMilli();

    assertThat(openAt(now, Duration.ZERO).timestampMillis()).isEqualTo(now);
    assertThat(reasonOf(() -> openAt(now - 1, Duration.ZERO))).isEqualTo(Reason.STALE);
    assertThat(reasonOf(() -> openAt(now + 1, Duration.ZERO))).isEqualTo(Reason.FUTURE);
  }

  @Test
  void negativeSkew_isAProgrammingError() {
    byte[] body = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);

    assertThatThrownBy(() -> BINARY.openRequest(body, SECRET, NOW, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusals_sayOnlyTheirReason_andCarryNoStackTrace() {
    for (Reason reason : Reason.values()) {
      EnvelopeException e = new EnvelopeException(reason);

      assertThat(e.getMessage())
          .isEqualTo("invalid v2 envelope: " + reason.name().toLowerCase(Locale.ROOT));
      assertThat(e.getStackTrace()).isEmpty();
      assertThat(e.getCause()).isNull();
    }
  }

  @Test
  void refusalsOfRealEnvelopes_neverQuoteTheirBytes() {
    byte[] raw = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS);
    List<Throwable> refusals = new ArrayList<>();
    refusals.add(
        catchThrowable(() -> BASE64.openRequest("%%%".getBytes(US_ASCII), SECRET, NOW, SKEW)));
    refusals.add(catchThrowable(() -> BINARY.openRequest(raw, OTHER_SECRET, NOW, SKEW)));
    refusals.add(catchThrowable(() -> BINARY.openRequest(raw, SECRET, NOW.plusSeconds(60), SKEW)));
    refusals.add(
        catchThrowable(
            () ->
                BINARY.openResponse(
                    BINARY.sealResponse(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS), SECRET, 1)));

    String hexNonce = Long.toHexString(NONCE);
    String hexSecret = HexFormat.of().formatHex(SECRET_BYTES);
    for (Throwable t : refusals) {
      assertThat(t).isInstanceOf(EnvelopeException.class);
      assertThat(t.getMessage())
          .startsWith("invalid v2 envelope: ")
          .doesNotContain(hexNonce, hexSecret, "email_hash", String.valueOf(NOW.toEpochMilli()));
      assertThat(t.toString()).doesNotContain("%%%");
    }
  }

  @ParameterizedTest
  @EnumSource(V2Envelope.class)
  void responseOfASlice_isTheResponseOfThoseBytes_andItsBoundsAreChecked(V2Envelope wire) {
    byte[] around = new byte[PAYLOAD.length + 9];
    Arrays.fill(around, (byte) '!');
    System.arraycopy(PAYLOAD, 0, around, 4, PAYLOAD.length);

    byte[] sliced = wire.sealResponse(around, 4, PAYLOAD.length, NONCE, SECRET, NOW, IV_SEVENS);

    assertThat(sliced).isEqualTo(wire.sealResponse(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS));
    assertThat(wire.openResponse(sliced, SECRET, NONCE).payloadBytes()).isEqualTo(PAYLOAD);
    assertThatThrownBy(
            () -> wire.sealResponse(around, 10, PAYLOAD.length, NONCE, SECRET, NOW, IV_SEVENS))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void openedEnvelope_exposesThePayloadWithoutCopying_andShowsOnlyItsLength() {
    OpenedEnvelope opened =
        BASE64.openRequest(
            BASE64.sealRequest(PAYLOAD, NONCE, SECRET, NOW, IV_SEVENS), SECRET, NOW, SKEW);

    ByteBuffer view = opened.payload();

    assertThat(view.hasArray()).isTrue();
    assertThat(view.position()).isZero();
    assertThat(view.remaining()).isEqualTo(PAYLOAD.length);
    assertThat(Arrays.copyOfRange(view.array(), view.arrayOffset(), view.arrayOffset() + 21))
        .isEqualTo(PAYLOAD);
    assertThat(opened.payload().array()).isSameAs(view.array());
    assertThat(opened.toString()).isEqualTo("OpenedEnvelope[payload=21 bytes]");
  }

  @Test
  void sealing_usesTheGivenIvSource_andDiffersForEachIv() {
    byte[] a = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, fixed(filled(12, 1)));
    byte[] b = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, fixed(filled(12, 2)));
    byte[] again = BINARY.sealRequest(PAYLOAD, NONCE, SECRET, NOW, fixed(filled(12, 1)));

    assertThat(Arrays.copyOfRange(a, 1, 13)).isEqualTo(filled(12, 1));
    assertThat(a).isNotEqualTo(b).isEqualTo(again);
  }

  @Test
  void sealing_doesNotChangeThePayloadArray() {
    byte[] payload = PAYLOAD.clone();

    BASE64.sealRequest(payload, NONCE, SECRET, NOW, IV_SEVENS);
    BINARY.sealResponse(payload, NONCE, SECRET, NOW, IV_SEVENS);

    assertThat(payload).isEqualTo(PAYLOAD);
  }

  @Test
  void manyThreadsWithManySecrets_roundTripAtOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        results.add(
            pool.submit(
                () -> {
                  int ok = 0;
                  for (int i = 0; i < 400; i++) {
                    // More secrets than a thread has cached ciphers, so ciphers change keys.
                    EnvelopeSecret secret = EnvelopeSecret.of(filled(32, thread * 50 + i % 50));
                    byte[] payload = ("{\"n\":" + i + "}").getBytes(UTF_8);
                    V2Envelope wire = i % 2 == 0 ? BASE64 : BINARY;
                    byte[] req = wire.sealRequest(payload, i, secret, NOW, NonceSource.secure());
                    OpenedEnvelope in = wire.openRequest(req, secret, NOW, SKEW);
                    byte[] resp =
                        wire.sealResponse(
                            in.payloadBytes(), in.nonce(), secret, NOW, NonceSource.secure());
                    if (Arrays.equals(wire.openResponse(resp, secret, i).payloadBytes(), payload)) {
                      ok++;
                    }
                  }
                  return ok;
                }));
      }
      for (Future<Integer> result : results) {
        assertThat(result.get()).isEqualTo(400);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void secret_mustBe32Bytes_andNeverShowsItself() {
    assertThatThrownBy(() -> EnvelopeSecret.of(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EnvelopeSecret.of(new byte[33]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EnvelopeSecret.fromBase64("c2VjcmV0LXRleHQtdGhhdC1pcy1zaG9ydA=="))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EnvelopeSecret.fromBase64("s3cr3t-with-dash"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cr3t")
        .hasMessageNotContaining("2d")
        .hasNoCause();
    assertThat(SECRET.toString()).isEqualTo("EnvelopeSecret[redacted]");
    assertThat(EnvelopeSecret.fromBase64(Base64.getEncoder().encodeToString(SECRET_BYTES)))
        .isNotNull();
  }

  @Test
  void secret_keepsItsOwnCopy() {
    byte[] bytes = filled(32, 9);
    EnvelopeSecret secret = EnvelopeSecret.of(bytes);
    byte[] body = BINARY.sealRequest(PAYLOAD, NONCE, secret, NOW, IV_SEVENS);

    Arrays.fill(bytes, (byte) 0);

    assertThat(BINARY.openRequest(body, secret, NOW, SKEW).payloadBytes()).isEqualTo(PAYLOAD);
  }

  private static OpenedEnvelope openAt(long timestampMillis) {
    return openAt(timestampMillis, SKEW);
  }

  private static OpenedEnvelope openAt(long timestampMillis, Duration skew) {
    byte[] body =
        BINARY.sealRequest(
            PAYLOAD, NONCE, SECRET, Instant.ofEpochMilli(timestampMillis), IV_SEVENS);
    return BINARY.openRequest(body, SECRET, NOW, skew);
  }

  /**
   * The reason of the {@link EnvelopeException} that {@code call} throws; fails on anything else.
   */
  static Reason reasonOf(Runnable call) {
    Throwable thrown = catchThrowable(call::run);
    assertThat(thrown).isInstanceOf(EnvelopeException.class);
    return ((EnvelopeException) thrown).reason();
  }

  private static byte[] encoded(V2Envelope wire, byte[] raw) {
    return wire == BASE64 ? Base64.getEncoder().encode(raw) : raw;
  }

  private static byte[] decoded(V2Envelope wire, byte[] body) {
    return wire == BASE64 ? Base64.getDecoder().decode(body) : body;
  }

  private static byte[] referenceEncrypt(byte[] iv, byte[] plain) throws Exception {
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(
        Cipher.ENCRYPT_MODE, new SecretKeySpec(SECRET_BYTES, "AES"), new GCMParameterSpec(128, iv));
    return cipher.doFinal(plain);
  }

  private static NonceSource fixed(byte[] iv) {
    return out -> System.arraycopy(iv, 0, out, 0, out.length);
  }

  private static byte[] filled(int length, int value) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, (byte) value);
    return bytes;
  }
}
