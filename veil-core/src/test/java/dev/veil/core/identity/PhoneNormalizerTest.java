package dev.veil.core.identity;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class PhoneNormalizerTest {
  @ParameterizedTest
  @ValueSource(strings = {"+1234567890", "+12345678901", "+123456789012345", "+00000000000"})
  void normalize_e164_isUnchanged(String raw) {
    assertThat(PhoneNormalizer.normalize(raw)).contains(raw);
  }

  @ParameterizedTest(name = "[{index}] ''{0}''")
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "+",
        "+123456789",
        "+1234567890123456",
        "12345678901",
        "++12345678901",
        " +12345678901",
        "+12345678901 ",
        "+1 2345678901",
        "+1-234-567-8901",
        "+1234567890a",
        "+1234567890\u0661",
        "+１２３４５６７８９０１",
      })
  void normalize_anythingElse_isEmpty(String raw) {
    assertThat(PhoneNormalizer.normalize(raw)).isEmpty();
  }
}
