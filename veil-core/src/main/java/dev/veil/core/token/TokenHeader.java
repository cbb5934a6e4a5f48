package dev.veil.core.token;

import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.InvalidTokenException.Reason;

/**
 * The six clear bytes that start both token formats: identity prefix (1), version (1), id of the
 * key that encrypts the rest (4, big-endian). They are not encrypted. In a refresh token they are
 * the additional authenticated data (AAD) of the encryption that follows them; an advertising token
 * uses no AAD, for UID2 compatibility, and protects them otherwise (see {@link
 * AdvertisingTokenCodec}).
 */
record TokenHeader(IdentityType identityType, byte version, int keyId) {
  static final int BYTES = 6;

  /** Writes the header to {@code out[0, 6)}. */
  void writeTo(byte[] out) {
    out[0] = identityType.prefix();
    out[1] = version;
    out[2] = (byte) (keyId >>> 24);
    out[3] = (byte) (keyId >>> 16);
    out[4] = (byte) (keyId >>> 8);
    out[5] = (byte) keyId;
  }

  /** The header as its six bytes, for use as AAD (refresh tokens). */
  byte[] toBytes() {
    byte[] bytes = new byte[BYTES];
    writeTo(bytes);
    return bytes;
  }

  /**
   * Reads the header from {@code token[0, 6)}.
   *
   * @throws InvalidTokenException {@link Reason#UNSUPPORTED_VERSION} if the version byte is not
   *     {@code expectedVersion}, {@link Reason#MALFORMED} if the prefix names no identity type
   */
  static TokenHeader read(byte[] token, byte expectedVersion) {
    if (token[1] != expectedVersion) {
      throw new InvalidTokenException(Reason.UNSUPPORTED_VERSION);
    }
    IdentityType type = IdentityType.fromPrefix(token[0]);
    if (type == null) {
      throw new InvalidTokenException(Reason.MALFORMED);
    }
    int keyId =
        ((token[2] & 0xFF) << 24)
            | ((token[3] & 0xFF) << 16)
            | ((token[4] & 0xFF) << 8)
            | (token[5] & 0xFF);
    return new TokenHeader(type, expectedVersion, keyId);
  }
}
