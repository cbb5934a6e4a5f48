package dev.veil.core.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class EmailNormalizerTest {
  @ParameterizedTest(name = "[{index}] ''{0}'' -> ''{1}''")
  @CsvSource(
      delimiter = '|',
      ignoreLeadingAndTrailingWhitespace = false,
      value = {
        "user@example.com|user@example.com",
        "User@Example.COM|user@example.com",
        "first.last+tag@example.com|first.last+tag@example.com",
        "first.last+tag@gmail.com|firstlast@gmail.com",
        "First.Last+Tag+More@GMail.Com|firstlast@gmail.com",
        "a.b.c@gmail.com|abc@gmail.com",
        "abc+x.y@gmail.com|abc@gmail.com",
        "abc@googlemail.com|abc@googlemail.com",
        "a.b+c@gmail.com.evil.org|a.b+c@gmail.com.evil.org",
        "a.b+c@sub.gmail.com|a.b+c@sub.gmail.com",
        "ÄNNE@Exämple.COM|Änne@exämple.com",
        "用户@例子.广告|用户@例子.广告",
        "x@y|x@y",
        "😀@example.com|😀@example.com",
      })
  void normalize_validAddress_givesNormalForm(String raw, String expected) {
    assertThat(EmailNormalizer.normalize(raw)).contains(expected);
    assertThat(EmailNormalizer.isValid(raw)).isTrue();
    assertThat(isValidAsAsciiBytes(raw)).isIn(true, null);
  }

  @ParameterizedTest(name = "[{index}] ''{0}''")
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "   ",
        "userexample.com",
        "a@b@example.com",
        "@example.com",
        "user@",
        "@",
        "user name@example.com",
        "user@exa mple.com",
        "user\t@example.com",
        "user\u0000@example.com",
        "user\u007F@example.com",
        "user\u0085@example.com",
        "user\u00A0@example.com",
        "\u00A0user@example.com",
        "user\u200B@example.com",
        "\uFEFFuser@example.com",
        "user\u2028@example.com",
        "user\uD800@example.com",
        "user\uDC00x@example.com",
        "+tag@gmail.com",
        "...@gmail.com",
        ".+a@gmail.com",
      })
  void normalize_invalidAddress_isEmpty(String raw) {
    assertThat(EmailNormalizer.normalize(raw)).isEmpty();
    assertThat(EmailNormalizer.isValid(raw)).isFalse();
    assertThat(isValidAsAsciiBytes(raw)).isIn(false, null);
  }

  @Test
  void normalize_trimsAsciiWhitespaceAtBothEnds() {
    assertThat(EmailNormalizer.normalize("  user@example.com\t\n")).contains("user@example.com");
    assertThat(EmailNormalizer.normalize("\r\u000B\fuser@example.com "))
        .contains("user@example.com");
  }

  @Test
  void normalize_atMaxLengthAfterTrimming_isAccepted() {
    String address = "a".repeat(EmailNormalizer.MAX_LENGTH - 12) + "@example.com";

    assertThat(EmailNormalizer.normalize("  " + address + "  ")).contains(address);
  }

  @Test
  void normalize_overMaxLength_isEmpty() {
    String address = "a".repeat(EmailNormalizer.MAX_LENGTH - 11) + "@example.com";

    assertThat(EmailNormalizer.normalize(address)).isEmpty();
  }

  @Test
  void normalize_gmailLengthIsCheckedBeforeDotsAreRemoved() {
    String dotted = "a.".repeat(122) + "a@gmail.com";

    assertThat(dotted).hasSize(EmailNormalizer.MAX_LENGTH + 1);
    assertThat(EmailNormalizer.normalize(dotted)).isEmpty();
    assertThat(EmailNormalizer.isValid(dotted)).isFalse();
    assertThat(EmailNormalizer.normalize(dotted.substring(2)))
        .contains("a".repeat(122) + "@gmail.com");
    assertThat(EmailNormalizer.isValid(dotted.substring(2))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {" A.B+c@GMAIL.com ", "Z@Y.x", "ÄNNE@Exämple.COM", "a.b+c@other.org"})
  void normalize_isIdempotent(String raw) {
    String once = EmailNormalizer.normalize(raw).orElseThrow();

    assertThat(EmailNormalizer.normalize(once)).contains(once);
  }

  /** {@link EmailNormalizer#isValidAscii} of the string's bytes, or null when it is not ASCII. */
  private static Boolean isValidAsAsciiBytes(String raw) {
    if (raw == null || !raw.chars().allMatch(c -> c < 0x80)) {
      return null;
    }
    byte[] bytes = raw.getBytes(StandardCharsets.US_ASCII);
    return EmailNormalizer.isValidAscii(bytes, 0, bytes.length);
  }

  @Test
  void isValidAscii_refusesNonAsciiBytes() {
    byte[] utf8 = "é@example.com".getBytes(StandardCharsets.UTF_8);

    assertThatIllegalArgumentException()
        .isThrownBy(() -> EmailNormalizer.isValidAscii(utf8, 0, utf8.length));
  }
}
