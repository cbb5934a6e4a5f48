package dev.veil.core.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {
  private static final byte[] SECRET = new byte[32];

  static {
    for (int i = 0; i < SECRET.length; i++) {
      SECRET[i] = (byte) i;
    }
  }

  private static final String TARGET = "/optout?identity=AbC%2Bd%3D&timestamp=1700000000";

  @Test
  void sign_isHmacSha256OfTheDocumentedText_inLowercaseHex() throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
    byte[] expected =
        mac.doFinal(("v1\n1700000005\nGET\n" + TARGET).getBytes(StandardCharsets.UTF_8));

    String header = WebhookSignature.sign(SECRET, 1_700_000_005L, "GET", TARGET);

    assertThat(header).isEqualTo("v1=" + java.util.HexFormat.of().formatHex(expected));
    assertThat(header).matches("v1=[0-9a-f]{64}");
  }

  @Test
  void matches_acceptsItsOwnSignature_andRefusesAnyChangedPart() {
    String header = WebhookSignature.sign(SECRET, 1_700_000_005L, "GET", TARGET);
    byte[] other = SECRET.clone();
    other[31] ^= 1;

    assertThat(WebhookSignature.matches(SECRET, 1_700_000_005L, "GET", TARGET, header)).isTrue();
    assertThat(WebhookSignature.matches(SECRET, 1_700_000_006L, "GET", TARGET, header)).isFalse();
    assertThat(WebhookSignature.matches(SECRET, 1_700_000_005L, "POST", TARGET, header)).isFalse();
    assertThat(WebhookSignature.matches(SECRET, 1_700_000_005L, "GET", TARGET + "0", header))
        .isFalse();
    assertThat(WebhookSignature.matches(other, 1_700_000_005L, "GET", TARGET, header)).isFalse();
    assertThat(WebhookSignature.matches(SECRET, 1_700_000_005L, "GET", TARGET, null)).isFalse();
    assertThat(WebhookSignature.matches(SECRET, 1_700_000_005L, "GET", TARGET, "v1=")).isFalse();
  }

  @Test
  void aSecretOfTheWrongLength_isRefused() {
    assertThatThrownBy(() -> WebhookSignature.sign(new byte[16], 1, "GET", "/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("32 bytes");
  }
}
