package dev.veil.salt;

import dev.veil.core.crypto.Sha256;
import java.nio.charset.StandardCharsets;

/**
 * How a bucket's salt and id derive from the store's secrets ({@link SaltSystem}), so that the
 * store never holds a salt: salt = {@code SHA-256(salt seed || index || generation)} (index and
 * generation as 4-byte big-endian integers), bucket id = base64url without padding of the first 9
 * bytes of {@code SHA-256(bucket id secret || index)} (12 characters). Each method writes into the
 * caller's array. Thread-safe.
 */
final class SaltDerivation {
  static final int SALT_BYTES = 32;
  static final int ID_CHARS = 12;
  private static final int ID_HASH_BYTES = 9;
  private static final byte[] BASE64URL =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
          .getBytes(StandardCharsets.US_ASCII);

  private final byte[] saltSeed;
  private final byte[] bucketIdSecret;

  SaltDerivation(SaltSystem system) {
    this.saltSeed = system.saltSeed();
    this.bucketIdSecret = system.bucketIdSecret();
  }

  /**
   * Writes the 32-byte salt of {@code bucket} at {@code generation} to {@code out[off, off+32)}.
   */
  void salt(int bucket, int generation, byte[] out, int off) {
    byte[] input = new byte[8];
    putInt(input, 0, bucket);
    putInt(input, 4, generation);
    Sha256.digestInto(saltSeed, input, 0, input.length, out, off);
  }

  /** Writes the 12 ASCII characters of the id of {@code bucket} to {@code out[off, off+12)}. */
  void bucketId(int bucket, byte[] out, int off) {
    byte[] input = new byte[4];
    putInt(input, 0, bucket);
    byte[] d = new byte[Sha256.BYTES];
    Sha256.digestInto(bucketIdSecret, input, 0, input.length, d, 0);
    for (int g = 0; g < ID_HASH_BYTES / 3; g++) {
      int v = (d[g * 3] & 0xff) << 16 | (d[g * 3 + 1] & 0xff) << 8 | (d[g * 3 + 2] & 0xff);
      out[off + g * 4] = BASE64URL[v >>> 18];
      out[off + g * 4 + 1] = BASE64URL[(v >>> 12) & 63];
      out[off + g * 4 + 2] = BASE64URL[(v >>> 6) & 63];
      out[off + g * 4 + 3] = BASE64URL[v & 63];
    }
  }

  private static void putInt(byte[] b, int off, int v) {
    b[off] = (byte) (v >>> 24);
    b[off + 1] = (byte) (v >>> 16);
    b[off + 2] = (byte) (v >>> 8);
    b[off + 3] = (byte) v;
  }
}
