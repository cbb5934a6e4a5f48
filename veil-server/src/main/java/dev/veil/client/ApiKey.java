package dev.veil.client;

import dev.veil.core.crypto.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * An API key as handed to a client once: {@code vk1.<key id>.<secret>}, where the key id (12
 * base64url characters) is public and names the client without a scan, and the secret (43 base64url
 * characters, 256 bits) is checked against the stored digest in constant time. {@link #toString()}
 * never shows the secret.
 */
public final class ApiKey {
  private static final String PREFIX = "vk1.";
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{12}");
  private static final Pattern SECRET = Pattern.compile("[A-Za-z0-9_-]{43}");
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private final String keyId;
  private final String secret;

  private ApiKey(String keyId, String secret) {
    this.keyId = keyId;
    this.secret = secret;
  }

  /** A new random key. */
  public static ApiKey generate(SecureRandom random) {
    byte[] id = new byte[9];
    byte[] secret = new byte[32];
    random.nextBytes(id);
    random.nextBytes(secret);
    return new ApiKey(B64.encodeToString(id), B64.encodeToString(secret));
  }

  /** Parses a presented key; returns null when it does not have the key format. */
  public static ApiKey parse(String presented) {
    if (presented == null || presented.length() != PREFIX.length() + 12 + 1 + 43 || !presented.startsWith(PREFIX)) {
      return null;
    }
    String id = presented.substring(4, 16);
    String secret = presented.substring(17);
    if (presented.charAt(16) != '.' || !ID.matcher(id).matches() || !SECRET.matcher(secret).matches()) {
      return null;
    }
    return new ApiKey(id, secret);
  }

  public String keyId() {
    return keyId;
  }

  /** The digest to store: a fresh random salt and SHA-256(salt || secret). */
  public ApiKeyDigest digest(SecureRandom random) {
    byte[] salt = new byte[16];
    random.nextBytes(salt);
    return new ApiKeyDigest(keyId, salt, hashWith(salt));
  }

  /** SHA-256(salt || secret) for this key's secret. */
  byte[] hashWith(byte[] salt) {
    return Sha256.digest(salt, secret.getBytes(StandardCharsets.US_ASCII));
  }

  /** The full key text, to show the client exactly once. */
  public String reveal() {
    return PREFIX + keyId + "." + secret;
  }

  @Override
  public String toString() {
    return "ApiKey{id=" + keyId + ", secret=<redacted>}";
  }
}
