package dev.veil.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ApiKeyTest {
  /** The format as a regular expression: the oracle the character loop must agree with. */
  private static final Pattern FORMAT =
      Pattern.compile("vk1\\.[A-Za-z0-9_-]{12}\\.[A-Za-z0-9_-]{43}");

  @Test
  void parse_generatedKey_roundTrips() {
    ApiKey key = ApiKey.generate(new SecureRandom());
    ApiKey parsed = ApiKey.parse(key.reveal());
    assertThat(parsed).isNotNull();
    assertThat(parsed.reveal()).isEqualTo(key.reveal());
    assertThat(parsed.keyId()).isEqualTo(key.keyId()).hasSize(12);
  }

  @Test
  void parse_refusesWrongShapes() {
    String good = ApiKey.generate(new SecureRandom()).reveal();
    assertThat(ApiKey.parse(null)).isNull();
    assertThat(ApiKey.parse("")).isNull();
    assertThat(ApiKey.parse(good + "A")).isNull();
    assertThat(ApiKey.parse(good.substring(1))).isNull();
    assertThat(ApiKey.parse("VK1" + good.substring(3))).isNull();
    assertThat(ApiKey.parse(good.substring(0, 16) + "-" + good.substring(17))).isNull();
    assertThat(ApiKey.parse(good.substring(0, 20) + "=" + good.substring(21))).isNull();
    assertThat(ApiKey.parse(good.substring(0, 5) + "+" + good.substring(6))).isNull();
    assertThat(ApiKey.parse(good.substring(0, 59) + "é")).isNull();
  }

  @Test
  void parse_agreesWithTheRegularExpression_onMutatedKeys() {
    Random random = new Random(42);
    String alphabet = "ABCXYZabcxyz0189-_.+/= \t\u00e9\u0000vk";
    for (int n = 0; n < 20_000; n++) {
      char[] text = ApiKey.generate(new SecureRandom()).reveal().toCharArray();
      for (int flips = random.nextInt(3); flips > 0; flips--) {
        text[random.nextInt(text.length)] = alphabet.charAt(random.nextInt(alphabet.length()));
      }
      String candidate = new String(text);
      assertThat(ApiKey.parse(candidate) != null)
          .as("parse of a mutated key")
          .isEqualTo(FORMAT.matcher(candidate).matches());
    }
  }

  @Test
  void toString_hidesTheSecret() {
    ApiKey key = ApiKey.generate(new SecureRandom());
    assertThat(key.toString()).doesNotContain(key.reveal().substring(17)).contains(key.keyId());
  }
}
