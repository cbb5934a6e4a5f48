package dev.veil.sdk.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.OpenedEnvelope;
import dev.veil.core.envelope.V2Envelope;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The two forms of a v2 request: base64 text sent as JSON's type, and raw bytes sent as {@code
 * application/octet-stream}; each is opened by the server's side of the same form, and each answer
 * is read back in its own form only.
 */
class V2EnvelopesTest {
  private static final Instant NOW = Instant.parse("2026-11-29T08:00:00Z");
  private final byte[] key = new byte[32];
  private final EnvelopeSecret secret;
  private final V2Envelopes envelopes;

  V2EnvelopesTest() {
    Arrays.fill(key, (byte) 7);
    secret = EnvelopeSecret.of(key);
    envelopes = new V2Envelopes(secret, Clock.fixed(NOW, ZoneOffset.UTC), NonceSource.secure());
  }

  private String roundTrip(V2Envelope form, ApiCaller.Attempt<String> attempt) throws IOException {
    OpenedEnvelope opened = form.openRequest(attempt.body(), secret, NOW, Duration.ofMinutes(2));
    assertThat(new String(opened.payloadBytes(), UTF_8)).isEqualTo("{\"email\":[]}");
    byte[] answer =
        form.sealResponse(
            "{\"status\":\"success\"}".getBytes(UTF_8),
            opened.nonce(),
            secret,
            NOW,
            NonceSource.secure());
    return attempt.reader().read(new ByteArrayInputStream(answer));
  }

  @Test
  void sealedBinary_sendsRawBytesAsOctetStream_andOpensARawAnswer() throws IOException {
    ApiCaller.Attempt<String> attempt =
        envelopes
            .sealedBinary(
                "{\"email\":[]}".getBytes(UTF_8), in -> new String(in.readAllBytes(), UTF_8))
            .get();

    assertThat(attempt.contentType()).isEqualTo("application/octet-stream");
    assertThat(roundTrip(V2Envelope.BINARY, attempt)).isEqualTo("{\"status\":\"success\"}");
    assertThatThrownBy(() -> roundTrip(V2Envelope.BASE64, attempt))
        .as("raw bytes are not base64 text")
        .isInstanceOf(dev.veil.core.envelope.EnvelopeException.class);
  }

  @Test
  void sealed_sendsBase64TextAsJsonType_andOpensABase64Answer() throws IOException {
    ApiCaller.Attempt<String> attempt =
        envelopes
            .sealed("{\"email\":[]}".getBytes(UTF_8), in -> new String(in.readAllBytes(), UTF_8))
            .get();

    assertThat(attempt.contentType()).isEqualTo("application/json");
    assertThat(new String(attempt.body(), UTF_8)).matches("[A-Za-z0-9+/]+=*");
    assertThat(roundTrip(V2Envelope.BASE64, attempt)).isEqualTo("{\"status\":\"success\"}");
  }

  @Test
  void aBinaryAnswerToABase64Request_isRefusedByReason() {
    ApiCaller.Attempt<String> attempt =
        envelopes
            .sealed("{\"email\":[]}".getBytes(UTF_8), in -> new String(in.readAllBytes(), UTF_8))
            .get();
    OpenedEnvelope opened =
        V2Envelope.BASE64.openRequest(attempt.body(), secret, NOW, Duration.ofMinutes(2));
    byte[] raw =
        V2Envelope.BINARY.sealResponse(
            "{}".getBytes(UTF_8), opened.nonce(), secret, NOW, NonceSource.secure());

    assertThatThrownBy(() -> attempt.reader().read(new ByteArrayInputStream(raw)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("the v2 answer cannot be opened: ");
  }
}
