package dev.veil.client;

import dev.veil.core.envelope.EnvelopeSecret;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A client's secret: 32 random bytes, the AES-256 key of the UID2 v2 request and response envelopes
 * that the client exchanges with Veil. Unlike the API key, the server needs the secret itself (to
 * decrypt requests and encrypt answers), so it is stored as it is, protected as the encryption keys
 * and salts are. Shown once, in standard base64 (as UID2's SDKs take it), when it is created or
 * rotated; never listed, logged or printed ({@link #toString()} hides it). Immutable.
 */
public final class ClientSecret {
  /** Length of a secret in bytes. */
  public static final int BYTES = 32;

  private final byte[] bytes;
  private final EnvelopeSecret envelopeKey;

  private ClientSecret(byte[] bytes) {
    this.bytes = bytes;
    this.envelopeKey = EnvelopeSecret.of(bytes);
  }

  /** The secret as the envelope codec takes it: made once, so its ciphers are reused. */
  public EnvelopeSecret envelopeKey() {
    return envelopeKey;
  }

  /** A new secret from {@code random}. */
  public static ClientSecret generate(SecureRandom random) {
    byte[] bytes = new byte[BYTES];
    random.nextBytes(bytes);
    return new ClientSecret(bytes);
  }

  /**
   * The secret with these bytes (as the store holds them).
   *
   * @throws IllegalArgumentException if there are not {@value #BYTES} of them
   */
  public static ClientSecret of(byte[] bytes) {
    if (bytes.length != BYTES) {
      throw new IllegalArgumentException("a client secret has " + BYTES + " bytes");
    }
    return new ClientSecret(bytes.clone());
  }

  /** A copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The secret in standard base64 with padding (44 characters), to show its owner once. */
  public String reveal() {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Equal secrets have equal bytes; compared in constant time. */
  @Override
  public boolean equals(Object other) {
    return other instanceof ClientSecret s && MessageDigest.isEqual(bytes, s.bytes);
  }

  @Override
  public int hashCode() {
    return 0; // never a key of a hash map: the hash would depend on the secret
  }

  @Override
  public String toString() {
    return "ClientSecret[hidden]";
  }
}
