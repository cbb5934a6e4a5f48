package dev.veil.core.token;

import dev.veil.core.token.InvalidTokenException.Reason;
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
      new TokenText(Base64.getUrlEncoder().withoutPadding(), Base64.getUrlDecoder(), false);
  /** Standard base64 with padding (refresh tokens). */
  static final TokenText STANDARD_PADDED = new TokenText(Base64.getEncoder(), Base64.getDecoder(), true);

  private final Base64.Encoder encoder;
  private final Base64.Decoder decoder;
  private final boolean padded;

  private TokenText(Base64.Encoder encoder, Base64.Decoder decoder, boolean padded) {
    this.encoder = encoder;
    this.decoder = decoder;
    this.padded = padded;
  }

  /** The text of {@code bytes} as US-ASCII bytes. */
  byte[] encodeAscii(byte[] bytes) {
    return encoder.encode(bytes);
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
