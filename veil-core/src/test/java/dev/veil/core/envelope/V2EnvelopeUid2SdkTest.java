package dev.veil.core.envelope;

import static dev.veil.core.envelope.V2Envelope.BASE64;
import static dev.veil.core.envelope.V2Envelope.BINARY;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.uid2.client.EnvelopeV2;
import com.uid2.client.IdentityMapV3Helper;
import com.uid2.client.IdentityMapV3Input;
import com.uid2.client.IdentityMapV3Response;
import com.uid2.client.IdentityTokens;
import com.uid2.client.PublisherUid2Helper;
import com.uid2.client.TokenGenerateInput;
import com.uid2.client.TokenGenerateResponse;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.crypto.Sha256;
import dev.veil.core.envelope.EnvelopeException.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * UID2's own Java SDK ({@code com.uid2:uid2-client}) and this codec read each other's envelopes:
 * the SDK's requests open here, with the JSON as the SDK wrote it, and the answers sealed here are
 * read by the SDK, which checks the echoed nonce. The SDK stamps its requests with its own clock,
 * so these tests open them at the real time.
 */
class V2EnvelopeUid2SdkTest {
  private static final String SECRET_BASE64 = "ioG3wKxAokmp+rERx6A4kM/13qhyolUXIu14WN16Spo=";
  private static final EnvelopeSecret SECRET = EnvelopeSecret.fromBase64(SECRET_BASE64);
  private static final String EMAIL = "user@example.com";
  private static final String EMAIL_HASH =
      Base64.getEncoder().encodeToString(Sha256.digest(EMAIL.getBytes(UTF_8)));

  @Test
  void sdkTokenGenerateRequest_opensHere_withTheSdksJsonAndTimestamp() {
    Instant before = Instant.now();
    EnvelopeV2 envelope =
        new PublisherUid2Helper(SECRET_BASE64)
            .createEnvelopeForTokenGenerateRequest(TokenGenerateInput.fromEmail(EMAIL));
    Instant after = Instant.now();

    OpenedEnvelope opened =
        BASE64.openRequest(
            envelope.getEnvelope().getBytes(US_ASCII), SECRET, after, V2Envelope.UID2_ALLOWED_SKEW);

    assertThat(new String(opened.payloadBytes(), UTF_8))
        .isEqualTo("{\"email_hash\":\"" + EMAIL_HASH + "\"}");
    assertThat(opened.timestampMillis()).isBetween(before.toEpochMilli(), after.toEpochMilli());
  }

  @Test
  void sdkBinaryEnvelope_isTheSameBytes_andOpensAsBinary() {
    EnvelopeV2 envelope =
        new PublisherUid2Helper(SECRET_BASE64)
            .createEnvelopeForTokenGenerateRequest(TokenGenerateInput.fromEmail(EMAIL));

    OpenedEnvelope fromBinary =
        BINARY.openRequest(
            envelope.getBinaryEnvelope(), SECRET, Instant.now(), V2Envelope.UID2_ALLOWED_SKEW);
    OpenedEnvelope fromText =
        BASE64.openRequest(
            envelope.getEnvelope().getBytes(US_ASCII),
            SECRET,
            Instant.now(),
            V2Envelope.UID2_ALLOWED_SKEW);

    assertThat(envelope.getEnvelope())
        .isEqualTo(Base64.getEncoder().encodeToString(envelope.getBinaryEnvelope()));
    assertThat(fromBinary.nonce()).isEqualTo(fromText.nonce());
    assertThat(fromBinary.payloadBytes()).isEqualTo(fromText.payloadBytes());
  }

  @Test
  void sdkRequest_underAnotherSecret_cannotDecrypt() {
    EnvelopeV2 envelope =
        new PublisherUid2Helper(Base64.getEncoder().encodeToString(new byte[32]))
            .createEnvelopeForTokenGenerateRequest(TokenGenerateInput.fromEmail(EMAIL));

    assertThat(
            V2EnvelopeTest.reasonOf(
                () ->
                    BASE64.openRequest(
                        envelope.getEnvelope().getBytes(US_ASCII),
                        SECRET,
                        Instant.now(),
                        V2Envelope.UID2_ALLOWED_SKEW)))
        .isEqualTo(Reason.CANNOT_DECRYPT);
  }

  @Test
  void answerSealedHere_isReadByTheSdk_asATokenGenerateSuccess() {
    PublisherUid2Helper sdk = new PublisherUid2Helper(SECRET_BASE64);
    EnvelopeV2 envelope =
        sdk.createEnvelopeForTokenGenerateRequest(TokenGenerateInput.fromEmail(EMAIL));
    OpenedEnvelope request = openWithTheRealClock(envelope);
    String answer =
        "{\"body\":{"
            + "\"advertising_token\":\"A4AAAAs6ZBcEbwAAA\","
            + "\"refresh_token\":\"AAAAAxxJrefresh\","
            + "\"identity_expires\":1767225600000,"
            + "\"refresh_expires\":1769817600000,"
            + "\"refresh_from\":1767222000000,"
            + "\"refresh_response_key\":\"wR5t6HKMfJ2r4J7fEGX9Gw==\""
            + "},\"status\":\"success\"}";

    byte[] sealed =
        BASE64.sealResponse(
            answer.getBytes(UTF_8), request.nonce(), SECRET, Instant.now(), NonceSource.secure());
    TokenGenerateResponse read = sdk.createTokenGenerateResponse(ascii(sealed), envelope);

    assertThat(read.isSuccess()).isTrue();
    IdentityTokens tokens = read.getIdentity();
    assertThat(tokens.getAdvertisingToken()).isEqualTo("A4AAAAs6ZBcEbwAAA");
    assertThat(tokens.getRefreshToken()).isEqualTo("AAAAAxxJrefresh");
    assertThat(read.getIdentityJsonString()).contains("\"refresh_from\":1767222000000");
  }

  @Test
  void answerSealedHere_isReadByTheSdk_asAnOptout() {
    PublisherUid2Helper sdk = new PublisherUid2Helper(SECRET_BASE64);
    EnvelopeV2 envelope =
        sdk.createEnvelopeForTokenGenerateRequest(TokenGenerateInput.fromEmail(EMAIL));
    long nonce = openWithTheRealClock(envelope).nonce();

    byte[] sealed =
        BASE64.sealResponse(
            "{\"status\":\"optout\"}".getBytes(UTF_8),
            nonce,
            SECRET,
            Instant.now(),
            NonceSource.secure());

    assertThat(sdk.createTokenGenerateResponse(ascii(sealed), envelope).isOptout()).isTrue();
  }

  @Test
  void answerSealedWithAnotherNonce_isRefusedByTheSdk() {
    PublisherUid2Helper sdk = new PublisherUid2Helper(SECRET_BASE64);
    EnvelopeV2 envelope =
        sdk.createEnvelopeForTokenGenerateRequest(TokenGenerateInput.fromEmail(EMAIL));
    long nonce = openWithTheRealClock(envelope).nonce();

    byte[] sealed =
        BASE64.sealResponse(
            "{\"status\":\"optout\"}".getBytes(UTF_8),
            nonce + 1,
            SECRET,
            Instant.now(),
            NonceSource.secure());

    assertThatThrownBy(() -> sdk.createTokenGenerateResponse(ascii(sealed), envelope))
        .isInstanceOf(RuntimeException.class)
        .hasMessage("Nonce in request does not match nonce in response");
  }

  @Test
  void binaryIdentityMapRequestAndAnswer_readEachOther() {
    IdentityMapV3Helper sdk = new IdentityMapV3Helper(SECRET_BASE64);
    IdentityMapV3Input input = IdentityMapV3Input.fromEmails(List.of(EMAIL));
    EnvelopeV2 envelope = sdk.createEnvelopeForIdentityMapRequest(input);

    OpenedEnvelope request =
        BINARY.openRequest(
            envelope.getBinaryEnvelope(), SECRET, Instant.now(), V2Envelope.UID2_ALLOWED_SKEW);
    // The JSON exactly as the SDK wrote it, whose Gson escapes "=" as a JSON unicode escape.
    assertThat(new String(request.payloadBytes(), UTF_8))
        .isEqualTo(
            "{\"email_hash\":[\""
                + EMAIL_HASH.replace("=", "\\u003d")
                + "\"],\"phone_hash\":[],\"email\":[],\"phone\":[]}");

    String answer =
        "{\"status\":\"success\",\"body\":{\"email_hash\":"
            + "[{\"u\":\"Q4A5u7CLMJ3Ll3W5PxkPsCPOkWbkiWlgXpYNjXmzpSc=\","
            + "\"p\":null,\"r\":1767225600}],"
            + "\"phone_hash\":[],\"email\":[],\"phone\":[]}}";
    byte[] sealed =
        BINARY.sealResponse(
            answer.getBytes(UTF_8), request.nonce(), SECRET, Instant.now(), NonceSource.secure());
    IdentityMapV3Response read = sdk.createIdentityMapResponse(sealed, envelope, input);

    assertThat(read.isSuccess()).isTrue();
    IdentityMapV3Response.MappedIdentity mapped = read.getMappedIdentities().get(EMAIL);
    assertThat(mapped.getCurrentRawUid()).isEqualTo("Q4A5u7CLMJ3Ll3W5PxkPsCPOkWbkiWlgXpYNjXmzpSc=");
    assertThat(mapped.getRefreshFrom()).isEqualTo(Instant.ofEpochSecond(1767225600));
  }

  private static OpenedEnvelope openWithTheRealClock(EnvelopeV2 envelope) {
    return BASE64.openRequest(
        envelope.getEnvelope().getBytes(US_ASCII), SECRET, Instant.now(), Duration.ofMinutes(1));
  }

  private static String ascii(byte[] text) {
    return new String(text, US_ASCII);
  }
}
