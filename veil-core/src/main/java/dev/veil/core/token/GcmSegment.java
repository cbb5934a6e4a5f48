package dev.veil.core.token;

import dev.veil.core.crypto.AesGcm;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;

/**
 * An encrypted segment inside a token: IV (12 bytes), ciphertext, tag (16 bytes), AES-256-GCM under
 * one {@link EncryptionKey}, with caller-chosen additional authenticated data.
 */
final class GcmSegment {
  /** Bytes a segment adds to its plaintext: IV and tag. */
  static final int OVERHEAD = AesGcm.IV_BYTES + AesGcm.TAG_BYTES;

  private GcmSegment() {}

  /**
   * Writes {@code iv}, then the encryption of {@code plain[off, off+len)}, then the tag to {@code
   * out} at {@code outOff}; returns the number of bytes written ({@code len + OVERHEAD}).
   */
  static int seal(
      EncryptionKey key,
      byte[] iv,
      byte[] aad,
      byte[] plain,
      int off,
      int len,
      byte[] out,
      int outOff) {
    System.arraycopy(iv, 0, out, outOff, AesGcm.IV_BYTES);
    return AesGcm.IV_BYTES
        + AesGcm.encrypt(key.spec(), iv, aad, plain, off, len, out, outOff + AesGcm.IV_BYTES);
  }

  /**
   * Decrypts the segment {@code in[off, off+len)} and returns its plaintext ({@code len - OVERHEAD}
   * bytes).
   *
   * @throws InvalidTokenException ({@link Reason#TAMPERED}) if the tag does not match
   */
  static byte[] open(EncryptionKey key, byte[] aad, byte[] in, int off, int len) {
    byte[] iv = Arrays.copyOfRange(in, off, off + AesGcm.IV_BYTES);
    try {
      return AesGcm.decrypt(key.spec(), iv, aad, in, off + AesGcm.IV_BYTES, len - AesGcm.IV_BYTES);
    } catch (AEADBadTagException tagMismatch) {
      throw new InvalidTokenException(Reason.TAMPERED);
    }
  }
}
