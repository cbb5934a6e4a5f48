package dev.veil.core.token;

import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The text form of a token's bytes: one base64 variant per format. Decoding is strict: the text
 * must have exactly the length of the expected byte count and be the canonical encoding of the
 * bytes (padding exactly as the variant writes it, unused trailing bits zero), so that one token
 * has exactly one spelling.
 */
final class TokenText {
  /** base64url without padding (advertising tokens). */
  static final TokenText URL_UNPADDED =
      new TokenText(
          Base64.getUrlEncoder().withoutPadding(),
          Base64.getUrlDecoder(),
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
          false);

  /** Standard base64 with padding (refresh tokens). */
  static final TokenText STANDARD_PADDED =
      new TokenText(
          Base64.getEncoder(),
          Base64.getDecoder(),
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
          true);

  private final Base64.Encoder encoder;
  private final Base64.Decoder decoder;
  private final byte[] alphabet;
  private final boolean padded;

  private TokenText(
      Base64.Encoder encoder, Base64.Decoder decoder, String alphabet, boolean padded) {
    this.encoder = encoder;
    this.decoder = decoder;
    this.alphabet = alphabet.getBytes(StandardCharsets.US_ASCII);
    this.padded = padded;
  }

  /**
   * The text of {@code bytes[off, off+len)} as US-ASCII bytes, in a new array of exactly {@link
   * #encodedLength} bytes (what the JDK's encoder of this variant writes; it takes whole arrays
   * only, and the codecs encode from a work buffer).
   */
  byte[] encodeAscii(byte[] bytes, int off, int len) {
    byte[] out = new byte[encodedLength(len)];
    int o = 0;
    int end = off + len - len % 3;
    for (int i = off; i < end; i += 3) {
      int v = (bytes[i] & 0xFF) << 16 | (bytes[i + 1] & 0xFF) << 8 | (bytes[i + 2] & 0xFF);
      out[o] = alphabet[v >>> 18];
      out[o + 1] = alphabet[(v >>> 12) & 63];
      out[o + 2] = alphabet[(v >>> 6) & 63];
      out[o + 3] = alphabet[v & 63];
      o += 4;
    }
    int rest = len % 3;
    if (rest > 0) {
      int v = (bytes[end] & 0xFF) << 16 | (rest == 2 ? (bytes[end + 1] & 0xFF) << 8 : 0);
      out[o++] = alphabet[v >>> 18];
      out[o++] = alphabet[(v >>> 12) & 63];
      if (rest == 2) {
        out[o++] = alphabet[(v >>> 6) & 63];
      } else if (padded) {
        out[o++] = '=';
      }
      if (padded) {
        out[o] = '=';
      }
    }
    return out;
  }

  /**
   * The {@code expectedBytes} bytes that {@code text} encodes.
   *
   * @throws InvalidTokenException ({@link Reason#MALFORMED}) for null, a wrong length, a character
   *     outside the alphabet, or a non-canonical spelling
   */
  byte[] decode(String text, int expectedBytes) {
    if (text == null || text.length() != encodedLength(expectedBytes)) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    byte[] bytes;
    try {
      bytes = decoder.decode(text);
    } catch (IllegalArgumentException notThisBase64) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    if (bytes.length != expectedBytes || !encoder.encodeToString(bytes).equals(text)) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    return bytes;
  }

  /** Number of characters that encode {@code bytes} bytes in this variant. */
  int encodedLength(int bytes) {
    return padded ? 4 * ((bytes + 2) / 3) : (4 * bytes + 2) / 3;
  }
}
