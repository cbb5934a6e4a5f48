package dev.veil.core.crypto;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 digests. Each thread reuses one {@link MessageDigest}, which makes a 32-byte digest cost
 * about 0.13 µs instead of the several hundred nanoseconds that creating a digest per call adds.
 *
 * <p>Thread-safe: all methods are static and use a per-thread digest.
 */
public final class Sha256 {
  /** Length of a SHA-256 digest in bytes. */
  public static final int BYTES = 32;

  private static final ThreadLocal<MessageDigest> DIGEST =
      ThreadLocal.withInitial(Sha256::newMessageDigest);

  private Sha256() {}

  /** The SHA-256 digest of {@code input}; a new 32-byte array. */
  public static byte[] digest(byte[] input) {
    return DIGEST.get().digest(input);
  }

  /** The SHA-256 digest of the concatenation {@code a || b}; a new 32-byte array. */
  public static byte[] digest(byte[] a, byte[] b) {
    MessageDigest digest = DIGEST.get();
    digest.update(a);
    return digest.digest(b);
  }

  /** The SHA-256 digest of {@code a || b[bOff .. bOff+bLen)}; a new 32-byte array. */
  public static byte[] digest(byte[] a, byte[] b, int bOff, int bLen) {
    MessageDigest digest = DIGEST.get();
    digest.update(a);
    digest.update(b, bOff, bLen);
    return digest.digest();
  }

  /**
   * Writes the SHA-256 digest of {@code a || b[bOff .. bOff+bLen)} to {@code out[outOff ..
   * outOff+32)}, allocating nothing.
   *
   * @throws IllegalArgumentException if {@code out} has fewer than 32 bytes from {@code outOff}
   */
  public static void digestInto(byte[] a, byte[] b, int bOff, int bLen, byte[] out, int outOff) {
    MessageDigest digest = DIGEST.get();
    digest.update(a);
    digest.update(b, bOff, bLen);
    try {
      digest.digest(out, outOff, BYTES);
    } catch (DigestException e) {
      throw new IllegalArgumentException("no room for a SHA-256 digest at offset " + outOff, e);
    }
  }

  private static MessageDigest newMessageDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must support SHA-256", e);
    }
  }
}
