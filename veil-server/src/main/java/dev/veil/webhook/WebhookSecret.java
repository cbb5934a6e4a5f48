package dev.veil.webhook;

import dev.veil.core.webhook.WebhookSignature;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A webhook's signing secret: 32 random bytes, the HMAC-SHA256 key of its requests' signatures
 * ({@link WebhookSignature}). Veil needs the secret itself to sign, so the store keeps it as it
 * keeps client secrets, keys and salts. Shown once, in standard base64, when the webhook is
 * registered; never listed, logged or printed ({@link #toString()} hides it). Immutable.
 */
public final class WebhookSecret {
  private final byte[] bytes;

  private WebhookSecret(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A new secret from {@code random}. */
  public static WebhookSecret generate(SecureRandom random) {
    byte[] bytes = new byte[WebhookSignature.SECRET_BYTES];
    random.nextBytes(bytes);
    return new WebhookSecret(bytes);
  }

  /**
   * The secret with these bytes (as the store holds them).
   *
   * @throws IllegalArgumentException if there are not 32 of them
   */
  public static WebhookSecret of(byte[] bytes) {
    if (bytes.length != WebhookSignature.SECRET_BYTES) {
      throw new IllegalArgumentException(
          "a webhook secret has " + WebhookSignature.SECRET_BYTES + " bytes");
    }
    return new WebhookSecret(bytes.clone());
  }

  /** A copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The value of the signature header for a request (see {@link WebhookSignature}). */
  public String sign(long timestampSeconds, String method, String requestTarget) {
    return WebhookSignature.sign(bytes, timestampSeconds, method, requestTarget);
  }

  /** The secret in standard base64 with padding (44 characters), to show its owner once. */
  public String reveal() {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Equal secrets have equal bytes; compared in constant time. */
  @Override
  public boolean equals(Object other) {
    return other instanceof WebhookSecret s && MessageDigest.isEqual(bytes, s.bytes);
  }

  @Override
  public int hashCode() {
    return 0; // never a key of a hash map: the hash would depend on the secret
  }

  @Override
  public String toString() {
    return "WebhookSecret[hidden]";
  }
}
