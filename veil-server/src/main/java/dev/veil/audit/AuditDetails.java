package dev.veil.audit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Collection;

/**
 * Builds the {@code details} of an {@link AuditEvent}: a JSON object of the fields a change set, in
 * the order added. Only what an operator may read goes in (names, ids, roles, settings); never a
 * secret, key, salt or identifier. Not thread-safe.
 */
public final class AuditDetails {
  private static final byte[] OPT_OUT_DOMAIN =
      "veil audit opt-out reference\0".getBytes(StandardCharsets.US_ASCII);

  private final StringBuilder json = new StringBuilder("{");

  public static AuditDetails of() {
    return new AuditDetails();
  }

  /** The object with no fields, {@code {}}. */
  public static String none() {
    return "{}";
  }

  public AuditDetails put(String name, String value) {
    key(name);
    string(value);
    return this;
  }

  public AuditDetails put(String name, long value) {
    key(name);
    json.append(value);
    return this;
  }

  public AuditDetails put(String name, double value) {
    key(name);
    json.append(Double.isFinite(value) ? Double.toString(value) : "null");
    return this;
  }

  public AuditDetails put(String name, boolean value) {
    key(name);
    json.append(value);
    return this;
  }

  /** An array of the values' {@code toString()}s, in iteration order. */
  public AuditDetails put(String name, Collection<?> values) {
    key(name);
    json.append('[');
    boolean first = true;
    for (Object v : values) {
      if (!first) {
        json.append(',');
      }
      first = false;
      if (v instanceof Number) {
        json.append(v);
      } else {
        string(String.valueOf(v));
      }
    }
    json.append(']');
    return this;
  }

  public String json() {
    return json + "}";
  }

  private void key(String name) {
    if (json.length() > 1) {
      json.append(',');
    }
    string(name);
    json.append(':');
  }

  private void string(String s) {
    json.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }

  /**
   * The audit trail's name for an opted-out identity: 16 bytes of SHA-256 over a fixed label and
   * the identity's first-level hash, in unpadded base64url. The first-level hash is keyed with the
   * server's secret first-level salt, so the reference cannot be turned back into, or tested
   * against, an identifier without that salt; the same identity always gets the same reference.
   */
  public static String optOutReference(byte[] firstLevelHash) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(OPT_OUT_DOMAIN);
      byte[] digest = sha.digest(firstLevelHash);
      byte[] head = new byte[16];
      System.arraycopy(digest, 0, head, 0, head.length);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(head);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
