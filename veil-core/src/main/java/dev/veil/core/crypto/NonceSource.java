package dev.veil.core.crypto;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Fills initialization vectors (nonces) for AES-GCM. Production code uses {@link #secure()}; tests
 * inject a source that returns fixed bytes, which makes token encodings reproducible.
 *
 * <p>{@code SecureRandom::nextBytes} is a valid implementation. Implementations used by the token
 * codecs must be thread-safe.
 */
@FunctionalInterface
public interface NonceSource {
  /** Fills all of {@code iv} with fresh, unpredictable bytes. */
  void nextBytes(byte[] iv);

  /**
   * A thread-safe source backed by a {@link SecureRandom} of algorithm {@code
   * NativePRNGNonBlocking} (reads the kernel's generator without blocking, ~0.3 µs per IV), or the
   * platform's default {@code SecureRandom} where that algorithm does not exist. DRBG is avoided on
   * purpose: it can cost up to ten times more and dominate a token generate.
   */
  static NonceSource secure() {
    SecureRandom random;
    try {
      random = SecureRandom.getInstance("NativePRNGNonBlocking");
    } catch (NoSuchAlgorithmException notOnThisPlatform) {
      random = new SecureRandom();
    }
    return random::nextBytes;
  }
}
