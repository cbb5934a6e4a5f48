package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.webhook.WebhookSignature;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class WebhookVerifierTest {
  private static final byte[] SECRET = new byte[32];
  private static final String SECRET_B64;
  private static final String ID;
  private static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");
  private static final long SIGNED = NOW.getEpochSecond() - 3;

  static {
    for (int i = 0; i < 32; i++) {
      SECRET[i] = (byte) (7 * i + 1);
    }
    SECRET_B64 = Base64.getEncoder().encodeToString(SECRET);
    byte[] id = new byte[32];
    id[0] = (byte) 0xfb; // base64 with '+' and '/' characters, which must be percent-encoded
    id[1] = (byte) 0xff;
    ID = Base64.getEncoder().encodeToString(id);
  }

  private final WebhookVerifier verifier =
      new WebhookVerifier(
          SECRET_B64, WebhookVerifier.DEFAULT_TOLERANCE, Clock.fixed(NOW, ZoneOffset.UTC));

  private static String target(String path, String idName, String timeName) {
    return path
        + "?"
        + idName
        + "="
        + URLEncoder.encode(ID, StandardCharsets.UTF_8)
        + "&"
        + timeName
        + "=1764330000";
  }

  private static String sign(long at, String target) {
    return WebhookSignature.sign(SECRET, at, "GET", target);
  }

  @Test
  void verify_aSignedRequest_returnsTheAdvertisingIdAndTime() {
    String target = target("/optout", "identity", "timestamp");

    OptOutNotice notice =
        verifier.verify("GET", target, Long.toString(SIGNED), sign(SIGNED, target));

    assertThat(notice.advertisingId()).isEqualTo(ID);
    assertThat(notice.optedOutAt()).isEqualTo(Instant.ofEpochSecond(1_764_330_000L));
  }

  @Test
  void verify_withTheReceiversOwnParameterNames_readsThem() {
    String target = target("/hooks/veil", "user", "optouttime");

    OptOutNotice notice =
        verifier.verify(
            "GET", target, Long.toString(SIGNED), sign(SIGNED, target), "user", "optouttime");

    assertThat(notice.advertisingId()).isEqualTo(ID);
  }

  @Test
  void verify_refusesAChangedTargetOrMethodOrAnotherSecret() {
    String target = target("/optout", "identity", "timestamp");
    String signature = sign(SIGNED, target);
    String changed = target.replace("timestamp=1764330000", "timestamp=1764330001");
    byte[] other = SECRET.clone();
    other[0] ^= 1;
    WebhookVerifier wrongSecret =
        new WebhookVerifier(
            Base64.getEncoder().encodeToString(other),
            WebhookVerifier.DEFAULT_TOLERANCE,
            Clock.fixed(NOW, ZoneOffset.UTC));

    assertThatThrownBy(() -> verifier.verify("GET", changed, Long.toString(SIGNED), signature))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessage("the signature does not match");
    assertThatThrownBy(() -> verifier.verify("POST", target, Long.toString(SIGNED), signature))
        .isInstanceOf(WebhookVerificationException.class);
    assertThatThrownBy(() -> wrongSecret.verify("GET", target, Long.toString(SIGNED), signature))
        .isInstanceOf(WebhookVerificationException.class);
  }

  @Test
  void verify_refusesAnOldOrFutureSignature_andMissingHeaders() {
    String target = target("/optout", "identity", "timestamp");
    long old = NOW.getEpochSecond() - 301;
    long ahead = NOW.getEpochSecond() + 301;

    assertThatThrownBy(() -> verifier.verify("GET", target, Long.toString(old), sign(old, target)))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageContaining("tolerance");
    assertThatThrownBy(
            () -> verifier.verify("GET", target, Long.toString(ahead), sign(ahead, target)))
        .isInstanceOf(WebhookVerificationException.class);
    assertThatThrownBy(() -> verifier.verify("GET", target, null, sign(SIGNED, target)))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageContaining("X-Veil-Timestamp");
    assertThatThrownBy(() -> verifier.verify("GET", target, Long.toString(SIGNED), null))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessageContaining("X-Veil-Signature");
  }

  @Test
  void verify_aSignedRequestWithoutTheParameters_isRefusedByName() {
    String target = "/optout?user=x";

    assertThatThrownBy(
            () -> verifier.verify("GET", target, Long.toString(SIGNED), sign(SIGNED, target)))
        .isInstanceOf(WebhookVerificationException.class)
        .hasMessage("parameter identity is missing or not an advertising id");
  }

  @Test
  void aSecretThatIsNot32BytesOfBase64_isRefused() {
    assertThatThrownBy(() -> new WebhookVerifier("not base64!"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new WebhookVerifier(Base64.getEncoder().encodeToString(new byte[16])))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("32 bytes");
  }
}
