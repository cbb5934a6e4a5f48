package dev.veil.core.envelope;

import java.util.Base64;
import java.util.Objects;
import javax.crypto.spec.SecretKeySpec;

/**
 * An API client's secret, the AES-256 key of its v2 envelopes (UID2 calls it the client secret).
 *
 * <p>Make one per client and keep it for as long as the client's secret stays the same: the
 * per-thread ciphers of {@link dev.veil.core.crypto.AesGcm} are found by the identity of the key
 * object, so a secret wrapped anew for each request would re-key a cipher every time. Immutable and
 * thread-safe; {@link #toString()} never shows the secret.
 */
public final class EnvelopeSecret {
  /** Length of a secret in bytes. */
  public static final int BYTES = 32;

  private final SecretKeySpec spec;

  private EnvelopeSecret(byte[] secret) {
    if (secret.length != BYTES) {
      throw new IllegalArgumentException("an envelope secret must be " + BYTES + " bytes");
    }
    this.spec = new SecretKeySpec(secret, "AES"); // SecretKeySpec keeps its own copy
  }

  /**
   * The secret of these 32 bytes (copied).
   *
   * @throws IllegalArgumentException if there are not exactly 32 bytes
   */
  public static EnvelopeSecret of(byte[] secret) {
    return new EnvelopeSecret(Objects.requireNonNull(secret, "secret"));
  }

  /**
   * The secret written in standard base64, as UID2 hands client secrets out.
   *
   * @throws IllegalArgumentException if the text is not base64 of exactly 32 bytes (the message
   *     does not repeat it)
   */
  public static EnvelopeSecret fromBase64(String base64) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(Objects.requireNonNull(base64, "base64"));
    } catch (IllegalArgumentException notBase64) {
      throw new IllegalArgumentException("an envelope secret must be standard base64", null);
    }
    return new EnvelopeSecret(bytes);
  }

  /** The key as a JCA key, the same object for the life of this secret; do not modify. */
  SecretKeySpec spec() {
    return spec;
  }

  @Override
  public String toString() {
    return "EnvelopeSecret[redacted]";
  }
}
