package dev.veil.core.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdentityHashTest {
  private static final String EMAIL = "user@example.com";
  private static final byte[] EMAIL_SHA256 = sha256(EMAIL);
  private static final String EMAIL_B64 = Base64.getEncoder().encodeToString(EMAIL_SHA256);

  @Test
  void parseEmail_isSha256OfNormalizedUtf8() {
    IdentityHash hash = IdentityHash.parse(IdentityInput.EMAIL, "  User@Example.com ");

    assertThat(hash.type()).isEqualTo(IdentityType.EMAIL);
    assertThat(hash.toBytes()).isEqualTo(EMAIL_SHA256);
    assertThat(hash.toBase64()).isEqualTo(EMAIL_B64).hasSize(44);
  }

  @Test
  void parseEmail_nonAscii_hashesUtf8Bytes() {
    assertThat(IdentityHash.parse(IdentityInput.EMAIL, "Änne@example.com").toBytes())
        .isEqualTo(sha256("Änne@example.com"));
  }

  @Test
  void email_andItsHash_areEqual() {
    IdentityHash fromEmail = IdentityHash.parse(IdentityInput.EMAIL, EMAIL);
    IdentityHash fromBase64 = IdentityHash.parse(IdentityInput.EMAIL_HASH, EMAIL_B64);
    IdentityHash fromHex =
        IdentityHash.parse(IdentityInput.EMAIL_HASH, HexFormat.of().formatHex(EMAIL_SHA256));

    assertThat(fromBase64).isEqualTo(fromEmail).hasSameHashCodeAs(fromEmail);
    assertThat(fromHex).isEqualTo(fromEmail);
  }

  @Test
  void phone_andItsHash_areEqual_butDifferFromAnEmailWithTheSameBytes() {
    String phoneB64 = Base64.getEncoder().encodeToString(sha256("+12345678901"));

    IdentityHash phone = IdentityHash.parse(IdentityInput.PHONE, "+12345678901");

    assertThat(IdentityHash.parse(IdentityInput.PHONE_HASH, phoneB64)).isEqualTo(phone);
    assertThat(IdentityHash.parse(IdentityInput.EMAIL_HASH, phoneB64)).isNotEqualTo(phone);
  }

  @Test
  void parseHash_acceptsUpperAndMixedCaseHex() {
    String hex = HexFormat.of().formatHex(EMAIL_SHA256);
    String mixed = hex.substring(0, 32).toUpperCase(Locale.ROOT) + hex.substring(32);

    assertThat(IdentityHash.parse(IdentityInput.EMAIL_HASH, hex.toUpperCase(Locale.ROOT)).toBytes())
        .isEqualTo(EMAIL_SHA256);
    assertThat(IdentityHash.parse(IdentityInput.EMAIL_HASH, mixed).toBytes())
        .isEqualTo(EMAIL_SHA256);
  }

  @Test
  void parseHash_acceptsBase64WithoutItsPadding() {
    String unpadded = EMAIL_B64.substring(0, 43);

    assertThat(IdentityHash.parse(IdentityInput.EMAIL_HASH, unpadded).toBytes())
        .isEqualTo(EMAIL_SHA256);
  }

  @Test
  void parseHash_base64WithPlusTurnedIntoSpace_isInvalid() {
    byte[] withPlus = new byte[32];
    withPlus[0] = (byte) 0xFB; // encodes as "+..."
    String b64 = Base64.getEncoder().encodeToString(withPlus);
    assertThat(b64).startsWith("+");

    assertThat(IdentityHash.parse(IdentityInput.EMAIL_HASH, b64).toBytes()).isEqualTo(withPlus);
    assertThatThrownBy(() -> IdentityHash.parse(IdentityInput.EMAIL_HASH, b64.replace('+', ' ')))
        .isInstanceOf(InvalidIdentifierException.class);
  }

  @Test
  void parseHash_nonCanonicalBase64_isInvalid() {
    // the last character before '=' carries 2 unused bits; setting one makes a second spelling
    char last = EMAIL_B64.charAt(42);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char nonCanonical = alphabet.charAt(alphabet.indexOf(last) | 1);
    String spelled = EMAIL_B64.substring(0, 42) + nonCanonical + "=";

    assertThat(spelled).isNotEqualTo(EMAIL_B64);
    assertThatThrownBy(() -> IdentityHash.parse(IdentityInput.EMAIL_HASH, spelled))
        .isInstanceOf(InvalidIdentifierException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "abc",
        // 31 bytes, 32 bytes with two paddings, 33 bytes
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        // base64url alphabet
        "-_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        // whitespace around or inside
        " AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= ",
        "AAAAAAAAAAAAAAAAAAAAA\nAAAAAAAAAAAAAAAAAAAAAA=",
        // 63, 65 hex digits, a non-hex letter, non-ASCII digits
        "000000000000000000000000000000000000000000000000000000000000000",
        "00000000000000000000000000000000000000000000000000000000000000000",
        "g000000000000000000000000000000000000000000000000000000000000000",
        "\u0660000000000000000000000000000000000000000000000000000000000000",
        // padding in the middle
        "AAAAAAAAAAAAAAAAAAAAA=AAAAAAAAAAAAAAAAAAAAAA",
      })
  void parseHash_otherForms_areInvalid(String value) {
    assertThatThrownBy(() -> IdentityHash.parse(IdentityInput.EMAIL_HASH, value))
        .isInstanceOf(InvalidIdentifierException.class);
  }

  @Test
  void parse_invalidValue_messageNamesTheInputButNotTheValue() {
    String secret = "not an email at all";

    assertThatThrownBy(() -> IdentityHash.parse(IdentityInput.EMAIL, secret))
        .isInstanceOfSatisfying(
            InvalidIdentifierException.class,
            e -> {
              assertThat(e.input()).isEqualTo(IdentityInput.EMAIL);
              assertThat(e.getMessage()).contains("email").doesNotContain(secret);
              assertThat(e.getStackTrace()).isEmpty();
            });
  }

  @Test
  void parse_null_isInvalid() {
    assertThatThrownBy(() -> IdentityHash.parse(IdentityInput.PHONE, null))
        .isInstanceOf(InvalidIdentifierException.class);
    assertThatThrownBy(() -> IdentityHash.parse(IdentityInput.PHONE, "+1 234 567 8901"))
        .isInstanceOf(InvalidIdentifierException.class);
  }

  @Test
  void of_copiesItsInputAndToBytesReturnsACopy() {
    byte[] bytes = EMAIL_SHA256.clone();
    IdentityHash hash = IdentityHash.of(IdentityType.EMAIL, bytes);
    bytes[0] ^= 1;
    hash.toBytes()[1] ^= 1;

    assertThat(hash.toBytes()).isEqualTo(EMAIL_SHA256);
  }

  @Test
  void of_wrongLength_isRejected() {
    assertThatThrownBy(() -> IdentityHash.of(IdentityType.EMAIL, new byte[31]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void equals_differsOnTypeOrAnyByte() {
    byte[] other = EMAIL_SHA256.clone();
    other[31] ^= 1;
    IdentityHash hash = IdentityHash.of(IdentityType.EMAIL, EMAIL_SHA256);

    assertThat(hash).isNotEqualTo(IdentityHash.of(IdentityType.EMAIL, other));
    assertThat(hash).isNotEqualTo(IdentityHash.of(IdentityType.PHONE, EMAIL_SHA256));
    assertThat(hash).isEqualTo(IdentityHash.of(IdentityType.EMAIL, EMAIL_SHA256.clone()));
  }

  @Test
  void toString_neverShowsTheHash() {
    IdentityHash hash = IdentityHash.of(IdentityType.EMAIL, EMAIL_SHA256);

    assertThat(hash.toString())
        .contains("EMAIL")
        .doesNotContain(EMAIL_B64)
        .doesNotContain(EMAIL_B64.substring(0, 8))
        .doesNotContain(HexFormat.of().formatHex(EMAIL_SHA256).substring(0, 8));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
