package dev.veil.core.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.IntRange;

class NormalizationProperties {
  @Property
  void email_normalizingTwiceChangesNothing(@ForAll(supplier = EmailLike.class) String raw) {
    Optional<String> once = EmailNormalizer.normalize(raw);

    once.ifPresent(normal -> assertThat(EmailNormalizer.normalize(normal)).contains(normal));
  }

  @Property
  void email_anyString_normalizesIdempotentlyOrNotAtAll(@ForAll String raw) {
    EmailNormalizer.normalize(raw)
        .ifPresent(normal -> assertThat(EmailNormalizer.normalize(normal)).contains(normal));
  }

  @Property
  void email_normalFormHasNoUppercaseAsciiNoWhitespaceAndOneAt(
      @ForAll(supplier = EmailLike.class) String raw) {
    EmailNormalizer.normalize(raw)
        .ifPresent(
            normal -> {
              assertThat(normal).doesNotContainPattern("[A-Z\\s]");
              assertThat(normal.indexOf('@'))
                  .isPositive()
                  .isEqualTo(normal.lastIndexOf('@'))
                  .isLessThan(normal.length() - 1);
            });
  }

  @Property
  void email_isValid_agreesWithNormalize(@ForAll(supplier = EmailLike.class) String raw) {
    assertThat(EmailNormalizer.isValid(raw)).isEqualTo(EmailNormalizer.normalize(raw).isPresent());
  }

  @Property
  void email_isValid_agreesWithNormalize_onAnyString(@ForAll String raw) {
    assertThat(EmailNormalizer.isValid(raw)).isEqualTo(EmailNormalizer.normalize(raw).isPresent());
  }

  @Property
  void email_isValidAscii_agreesWithIsValid(@ForAll(supplier = EmailLike.class) String raw) {
    String ascii = raw.replace('é', 'e').replace('ü', 'u');
    byte[] padded = ("<" + ascii + ">").getBytes(StandardCharsets.US_ASCII);

    assertThat(EmailNormalizer.isValidAscii(padded, 1, padded.length - 2))
        .isEqualTo(EmailNormalizer.isValid(ascii));
  }

  @Property
  void email_isValidAscii_agreesWithIsValid_onAnyAsciiString(
      @ForAll @CharRange(from = 0, to = 127) String raw) {
    byte[] bytes = raw.getBytes(StandardCharsets.US_ASCII);

    assertThat(EmailNormalizer.isValidAscii(bytes, 0, bytes.length))
        .isEqualTo(EmailNormalizer.isValid(raw));
  }

  @Property
  void email_isValidAscii_agreesWithIsValid_nearTheLengthLimit(
      @ForAll @IntRange(min = 240, max = 270) int length, @ForAll("asciiPadding") String padding) {
    String raw = padding + "a".repeat(length - 10) + "@gmail.com" + padding;
    byte[] bytes = raw.getBytes(StandardCharsets.US_ASCII);

    assertThat(EmailNormalizer.isValidAscii(bytes, 0, bytes.length))
        .isEqualTo(EmailNormalizer.isValid(raw));
  }

  @Provide
  Arbitrary<String> asciiPadding() {
    return Arbitraries.of("", " ", "\t\u000B\f", "\r\n");
  }

  @Property
  void email_asciiCaseAndSurroundingSpaceDoNotMatter(
      @ForAll(supplier = EmailLike.class) String raw) {
    assertThat(EmailNormalizer.normalize(" \t" + upperCaseAscii(raw) + "\n"))
        .isEqualTo(EmailNormalizer.normalize(raw));
  }

  @Property
  void email_nonAsciiLettersKeepTheirCase(@ForAll(supplier = EmailLike.class) String raw) {
    EmailNormalizer.normalize(raw.replace('é', 'É'))
        .ifPresent(normal -> assertThat(normal).doesNotContain("é"));
  }

  @Property
  void phone_normalizingTwiceChangesNothing(@ForAll("phoneLike") String raw) {
    PhoneNormalizer.normalize(raw)
        .ifPresent(normal -> assertThat(PhoneNormalizer.normalize(normal)).contains(normal));
  }

  @Property
  void phone_validExactlyForPlusAndTenToFifteenDigits(@ForAll("phoneLike") String raw) {
    assertThat(PhoneNormalizer.normalize(raw).isPresent())
        .isEqualTo(raw.matches("\\+[0-9]{10,15}"));
  }

  @Provide
  Arbitrary<String> phoneLike() {
    Arbitrary<String> digits =
        Arbitraries.strings().withChars("0123456789 -").ofMinLength(0).ofMaxLength(17);
    return Combinators.combine(Arbitraries.of("+", "", "++", " +"), digits).as(String::concat);
  }

  private static String upperCaseAscii(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c >= 'a' && c <= 'z' ? (char) (c - 32) : c);
    }
    return out.toString();
  }
}
