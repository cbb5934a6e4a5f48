package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.VeilException;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.OpenedEnvelope;
import dev.veil.core.envelope.V2Envelope;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The buffers {@link V2Requests} hands on: views of its arrays, not copies. */
class V2RequestsTest {
  private static final EnvelopeSecret SECRET = EnvelopeSecret.of(new byte[32]);
  private static final Instant NOW = Instant.parse("2026-11-28T00:00:00Z");
  private static final JsonBodies BODIES = new JsonBodies(1 << 20);

  private static OpenedEnvelope opened(String json) {
    byte[] body =
        V2Envelope.BASE64.sealRequest(
            json.getBytes(StandardCharsets.UTF_8),
            42L,
            SECRET,
            NOW,
            iv -> Arrays.fill(iv, (byte) 7));
    return V2Envelope.BASE64.openRequest(body, SECRET, NOW, V2Envelope.UID2_ALLOWED_SKEW);
  }

  @Test
  void payload_isTheOpenedJsonAlone_andParsesFromItsOffset() {
    String json = "{\"email\":\"user@example.com\",\"optout_check\":1}";

    Buffer payload = V2Requests.payload(opened(json));

    // The decrypted array starts with the time and the nonce: only the payload's bytes may show.
    assertThat(payload.length()).isEqualTo(json.length());
    assertThat(payload.toString(StandardCharsets.UTF_8)).isEqualTo(json);
    assertThat(BODIES.params(payload).get("email")).isEqualTo("user@example.com");
  }

  @Test
  void payload_ofAnEmptyEnvelope_isAnEmptyBody() {
    Buffer payload = V2Requests.payload(opened(""));

    assertThat(payload.length()).isZero();
    assertThatThrownBy(() -> BODIES.params(payload))
        .isInstanceOf(VeilException.class)
        .hasMessage("Request body is empty: expected a JSON object");
  }

  @Test
  void payload_thatIsNotJson_isRefusedAsBefore() {
    Buffer payload = V2Requests.payload(opened("{\"email\":"));

    assertThatThrownBy(() -> BODIES.params(payload))
        .isInstanceOf(VeilException.class)
        .hasMessage("Malformed JSON body: unexpected end of input");
  }

  @Test
  void wrap_keepsEveryByte() {
    byte[] sealed = "c2VhbGVk".getBytes(StandardCharsets.US_ASCII);

    Buffer wrapped = V2Requests.wrap(sealed);

    assertThat(wrapped.getBytes()).isEqualTo(sealed);
    assertThat(wrapped.length()).isEqualTo(sealed.length);
  }
}
