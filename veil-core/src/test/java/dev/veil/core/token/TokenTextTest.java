package dev.veil.core.token;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TokenTextTest {
  @Test
  void encodeAscii_writesWhatTheJdkEncoderWrites_forEveryLengthAndOffset() {
    Random random = new Random(11);
    for (int len = 0; len < 40; len++) {
      byte[] buffer = new byte[len + 7];
      random.nextBytes(buffer);
      byte[] part = Arrays.copyOfRange(buffer, 3, 3 + len);
      assertThat(
              new String(
                  TokenText.URL_UNPADDED.encodeAscii(buffer, 3, len), StandardCharsets.US_ASCII))
          .isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(part));
      assertThat(
              new String(
                  TokenText.STANDARD_PADDED.encodeAscii(buffer, 3, len), StandardCharsets.US_ASCII))
          .isEqualTo(Base64.getEncoder().encodeToString(part));
    }
  }
}
