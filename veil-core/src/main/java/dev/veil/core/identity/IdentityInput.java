package dev.veil.core.identity;

/**
 * The four ways a caller can name an identity, one per request parameter. The raw forms ({@link
 * #EMAIL}, {@link #PHONE}) are normalized and hashed; the hashed forms are the SHA-256 of an
 * already normalized identifier.
 */
public enum IdentityInput {
  EMAIL("email", IdentityType.EMAIL),
  EMAIL_HASH("email_hash", IdentityType.EMAIL),
  PHONE("phone", IdentityType.PHONE),
  PHONE_HASH("phone_hash", IdentityType.PHONE);

  private final String parameterName;
  private final IdentityType type;

  IdentityInput(String parameterName, IdentityType type) {
    this.parameterName = parameterName;
    this.type = type;
  }

  /** The request parameter (and JSON key) that carries this input, e.g. {@code email_hash}. */
  public String parameterName() {
    return parameterName;
  }

  /** The kind of identity this input names. */
  public IdentityType type() {
    return type;
  }

  /** Whether the value is already a hash (base64 or hex of 32 bytes) rather than raw PII. */
  public boolean isHash() {
    return this == EMAIL_HASH || this == PHONE_HASH;
  }

  /** The input whose parameter name is exactly {@code name}, or {@code null} when none is. */
  public static IdentityInput fromParameterName(String name) {
    for (IdentityInput input : values()) {
      if (input.parameterName.equals(name)) {
        return input;
      }
    }
    return null;
  }
}
