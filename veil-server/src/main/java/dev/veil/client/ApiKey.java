package dev.veil.client;

import dev.veil.core.crypto.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * An API key as handed to a client once: {@code vk1.<key id>.<secret>}, where the key id (12
 * base64url characters) is public and names the client without a scan, and the secret (43 base64url
 * characters, 256 bits) is checked against the stored digest in constant time. {@link #toString()}
 * never shows the secret.
 *
 * <p>{@link #parse} checks the format with a character loop rather than regular expressions (which
 * cost 7 % of a generate request's CPU): it reads every character whatever it finds, so its time
 * depends on the length of the text only, never on where a bad character sits.
 */
public final class ApiKey {
  private static final String PREFIX = "vk1.";
  private static final int ID_CHARS = 12;
  private static final int SECRET_CHARS = 43;
  private static final int ID_END = PREFIX.length() + ID_CHARS;

  /** {@code vk1.} + id + {@code .} + secret: 60 characters. */
  static final int LENGTH = ID_END + 1 + SECRET_CHARS;

  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private final String keyId;

  /** The secret's 43 characters as US-ASCII bytes: what is hashed. */
  private final byte[] secret;

  private ApiKey(String keyId, byte[] secret) {
    this.keyId = keyId;
    this.secret = secret;
  }

  /** A new random key. */
  public static ApiKey generate(SecureRandom random) {
    byte[] id = new byte[9];
    byte[] secret = new byte[32];
    random.nextBytes(id);
    random.nextBytes(secret);
    return new ApiKey(B64.encodeToString(id), B64.encode(secret));
  }

  /** Parses a presented key; returns null when it does not have the key format. */
  public static ApiKey parse(String presented) {
    return presented == null ? null : parse(presented, 0, presented.length());
  }

  /**
   * Parses the key in {@code text[from, to)}; returns null when it does not have the key format
   * ({@code vk1.}, 12 base64url characters, {@code .}, 43 base64url characters).
   */
  static ApiKey parse(String text, int from, int to) {
    if (to - from != LENGTH || !text.startsWith(PREFIX, from)) {
      return null;
    }
    boolean valid = text.charAt(from + ID_END) == '.';
    for (int i = from + PREFIX.length(); i < from + ID_END; i++) {
      valid &= isBase64Url(text.charAt(i));
    }
    byte[] secret = new byte[SECRET_CHARS];
    for (int i = 0; i < SECRET_CHARS; i++) {
      char c = text.charAt(from + ID_END + 1 + i);
      valid &= isBase64Url(c);
      secret[i] = (byte) c;
    }
    if (!valid) {
      return null;
    }
    return new ApiKey(text.substring(from + PREFIX.length(), from + ID_END), secret);
  }

  /** {@code [A-Za-z0-9_-]}, without branches that depend on which class the character is in. */
  @SuppressWarnings(
      "ShortCircuitBoolean") // non-short-circuit on purpose: no branch on the key's bytes
  private static boolean isBase64Url(char c) {
    return (c >= 'A' & c <= 'Z')
        | (c >= 'a' & c <= 'z')
        | (c >= '0' & c <= '9')
        | c == '-'
        | c == '_';
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
    return Sha256.digest(salt, secret);
  }

  /** The full key text, to show the client exactly once. */
  public String reveal() {
    return PREFIX + keyId + "." + new String(secret, StandardCharsets.US_ASCII);
  }

  @Override
  public String toString() {
    return "ApiKey{id=" + keyId + ", secret=<redacted>}";
  }
}
