package dev.veil.core.crypto;

import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-GCM with a 12-byte IV and a 16-byte tag; the ciphertext is followed by the tag. Veil's keys
 * ({@code EncryptionKey}) are always 256 bits, which makes this AES-256-GCM.
 *
 * <p>Each thread reuses one encrypting and one decrypting {@link Cipher}: creating a {@code Cipher}
 * costs about 5 µs, more than the encryption of a whole token. The JDK refuses to initialise a GCM
 * encryption twice in a row with the same key and IV ("Cannot reuse iv"), a guard against nonce
 * reuse that also trips deterministic tests; in that case the cipher is first initialised with a
 * different IV and then with the requested one. Callers stay responsible for never reusing an IV
 * with the same key in production (use {@link NonceSource#secure()}).
 *
 * <p>Thread-safe: all methods are static and use per-thread ciphers.
 */
public final class AesGcm {
  /** Length of the initialization vector in bytes. */
  public static final int IV_BYTES = 12;

  /** Length of the authentication tag in bytes, appended to the ciphertext. */
  public static final int TAG_BYTES = 16;

  private static final byte[] NO_AAD = new byte[0];
  private static final byte[] NO_HEAD = new byte[0];

  /**
   * Ciphers per thread and key. Re-initializing a {@code Cipher} with a different key expands the
   * key again (about 1.6 µs, measured by veil-bench's AesGcmKeySwitchBenchmark), while a token
   * generate uses three keys in turn; keeping one cipher per key makes every init a same-key init.
   * Bounded, least recently used first out, so a server with many site keys stays small ({@link
   * CipherCache}).
   */
  private static final int CIPHERS_PER_THREAD = 32;

  private static final ThreadLocal<CipherCache> ENCRYPTORS =
      ThreadLocal.withInitial(() -> new CipherCache(CIPHERS_PER_THREAD, AesGcm::newCipher));
  private static final ThreadLocal<CipherCache> DECRYPTORS =
      ThreadLocal.withInitial(() -> new CipherCache(CIPHERS_PER_THREAD, AesGcm::newCipher));

  private AesGcm() {}

  /**
   * Encrypts {@code plain[off, off+len)} and writes ciphertext then tag ({@code len + 16} bytes) to
   * {@code out} at {@code outOff}. Returns the number of bytes written.
   *
   * @throws IllegalArgumentException if the key is not an AES key, the IV is not 12 bytes, or
   *     {@code out} is too small
   */
  public static int encrypt(
      SecretKeySpec key, byte[] iv, byte[] plain, int off, int len, byte[] out, int outOff) {
    return encrypt(key, iv, NO_AAD, plain, off, len, out, outOff);
  }

  /**
   * Like {@link #encrypt(SecretKeySpec, byte[], byte[], int, int, byte[], int)}, and also
   * authenticates {@code aad} (additional authenticated data: not encrypted, not written, but the
   * same bytes must be given to decrypt).
   */
  public static int encrypt(
      SecretKeySpec key,
      byte[] iv,
      byte[] aad,
      byte[] plain,
      int off,
      int len,
      byte[] out,
      int outOff) {
    return encrypt(key, iv, aad, NO_HEAD, plain, off, len, out, outOff);
  }

  /**
   * Encrypts {@code head} followed by {@code plain[off, off+len)} as one message, into {@code out}
   * from {@code outOff} (ciphertext, then the 16-byte tag), without joining the two first: the same
   * bytes as {@link #encrypt(SecretKeySpec, byte[], byte[], int, int, byte[], int)} of the joined
   * message. {@code out} must not overlap either input.
   *
   * @return the bytes written: {@code head.length + len + 16}
   */
  public static int encryptJoined(
      SecretKeySpec key,
      byte[] iv,
      byte[] head,
      byte[] plain,
      int off,
      int len,
      byte[] out,
      int outOff) {
    return encrypt(key, iv, NO_AAD, head, plain, off, len, out, outOff);
  }

  /** Encrypts {@code head || plain[off, off+len)}, authenticating {@code aad}. */
  private static int encrypt(
      SecretKeySpec key,
      byte[] iv,
      byte[] aad,
      byte[] head,
      byte[] plain,
      int off,
      int len,
      byte[] out,
      int outOff) {
    checkKeyAndIv(key, iv);
    Cipher cipher = ENCRYPTORS.get().get(key);
    try {
      initEncrypt(cipher, key, iv);
      if (aad.length > 0) {
        cipher.updateAAD(aad);
      }
      int n = head.length == 0 ? 0 : cipher.update(head, 0, head.length, out, outOff);
      return n + cipher.doFinal(plain, off, len, out, outOff + n);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "AES-GCM encryption failed: " + e.getClass().getSimpleName(), e);
    }
  }

  /**
   * Decrypts {@code in[off, off+len)} (ciphertext followed by its tag) and returns the plaintext,
   * {@code len - 16} bytes.
   *
   * @throws AEADBadTagException if the tag does not match (wrong key, wrong IV, altered bytes) or
   *     the input is shorter than a tag
   * @throws IllegalArgumentException if the key is not an AES key or the IV is not 12 bytes
   */
  public static byte[] decrypt(SecretKeySpec key, byte[] iv, byte[] in, int off, int len)
      throws AEADBadTagException {
    return decrypt(key, iv, NO_AAD, in, off, len);
  }

  /**
   * Like {@link #decrypt(SecretKeySpec, byte[], byte[], int, int)}, and also checks that {@code
   * aad} is the additional authenticated data given to encrypt.
   */
  public static byte[] decrypt(
      SecretKeySpec key, byte[] iv, byte[] aad, byte[] in, int off, int len)
      throws AEADBadTagException {
    checkKeyAndIv(key, iv);
    if (len < TAG_BYTES) {
      throw new AEADBadTagException("input shorter than the tag");
    }
    Cipher cipher = DECRYPTORS.get().get(key);
    try {
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BYTES * 8, iv));
      if (aad.length > 0) {
        cipher.updateAAD(aad);
      }
      return cipher.doFinal(in, off, len);
    } catch (AEADBadTagException e) {
      throw e;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "AES-GCM decryption failed: " + e.getClass().getSimpleName(), e);
    }
  }

  private static void initEncrypt(Cipher cipher, SecretKeySpec key, byte[] iv)
      throws GeneralSecurityException {
    GCMParameterSpec spec = new GCMParameterSpec(TAG_BYTES * 8, iv);
    try {
      cipher.init(Cipher.ENCRYPT_MODE, key, spec);
    } catch (InvalidAlgorithmParameterException sameKeyAndIvAsLastTime) {
      byte[] other = iv.clone();
      other[0] ^= 1;
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BYTES * 8, other));
      cipher.init(Cipher.ENCRYPT_MODE, key, spec);
    }
  }

  private static void checkKeyAndIv(SecretKeySpec key, byte[] iv) {
    if (iv.length != IV_BYTES) {
      throw new IllegalArgumentException("AES-GCM IV must be " + IV_BYTES + " bytes");
    }
    if (!"AES".equalsIgnoreCase(key.getAlgorithm())) {
      throw new IllegalArgumentException("not an AES key");
    }
  }

  private static Cipher newCipher() {
    try {
      return Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform must support AES/GCM/NoPadding", e);
    }
  }
}
