package dev.veil.core.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.veil.core.crypto.NonceSource;
import java.time.Duration;
import java.time.Instant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class V2EnvelopeProperties {
  private static final EnvelopeSecret SECRET = EnvelopeSecret.of(new byte[32]);
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  @Property
  void anyPayloadAndNonce_roundTripBothWays(
      @ForAll V2Envelope wire, @ForAll @Size(max = 2_000) byte[] payload, @ForAll long nonce) {
    byte[] request = wire.sealRequest(payload, nonce, SECRET, NOW, NonceSource.secure());
    OpenedEnvelope in = wire.openRequest(request, SECRET, NOW, Duration.ZERO);
    byte[] response =
        wire.sealResponse(in.payloadBytes(), in.nonce(), SECRET, NOW, NonceSource.secure());
    OpenedEnvelope out = wire.openResponse(response, SECRET, nonce);

    assertThat(in.nonce()).isEqualTo(nonce);
    assertThat(in.payloadBytes()).isEqualTo(payload);
    assertThat(out.payloadBytes()).isEqualTo(payload);
    assertThat(out.timestamp()).isEqualTo(NOW);
  }

  @Property
  void anyBody_isOpenedOrRefusedWithAReason_neverAnythingElse(
      @ForAll V2Envelope wire, @ForAll @Size(max = 200) byte[] body, @ForAll long nonce) {
    Throwable request =
        catchThrowable(() -> wire.openRequest(body, SECRET, NOW, V2Envelope.UID2_ALLOWED_SKEW));
    Throwable response = catchThrowable(() -> wire.openResponse(body, SECRET, nonce));

    assertThat(request).isInstanceOf(EnvelopeException.class);
    assertThat(response).isInstanceOf(EnvelopeException.class);
  }
}
