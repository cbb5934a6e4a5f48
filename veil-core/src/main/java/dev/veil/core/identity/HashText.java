package dev.veil.core.identity;

import dev.veil.core.text.HexDigit;
import java.util.Base64;

/**
 * Decodes the text forms of a 32-byte hash that callers may send: standard base64 (44 characters
 * with its one {@code =}, or 43 without it) or 64 hexadecimal digits in either case. Base64 must be
 * canonical (unused trailing bits zero) so that every hash has one base64 spelling; base64url,
 * whitespace and any other character are refused.
 */
final class HashText {
  private static final int HASH_BYTES = 32;
  private static final int BASE64_PADDED = 44;
  private static final int BASE64_UNPADDED = 43;
  private static final int HEX = 64;

  private HashText() {}

  /** The 32 bytes that {@code text} spells, or {@code null} when it is not an accepted form. */
  static byte[] decode(String text) {
    return switch (text.length()) {
      case BASE64_PADDED, BASE64_UNPADDED -> fromBase64(text);
      case HEX -> fromHex(text);
      default -> null;
    };
  }

  private static byte[] fromBase64(String text) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException notBase64) {
      return null;
    }
    if (bytes.length != HASH_BYTES) {
      return null;
    }
    String canonical = Base64.getEncoder().encodeToString(bytes);
    return canonical.regionMatches(0, text, 0, text.length()) ? bytes : null;
  }

  private static byte[] fromHex(String text) {
    byte[] bytes = new byte[HASH_BYTES];
    for (int i = 0; i < HASH_BYTES; i++) {
      int high = HexDigit.value(text.charAt(2 * i));
      int low = HexDigit.value(text.charAt(2 * i + 1));
      if (high < 0 || low < 0) {
        return null;
      }
      bytes[i] = (byte) ((high << 4) | low);
    }
    return bytes;
  }
}
