package dev.veil.sdk;

import dev.veil.core.identity.EmailNormalizer;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.InvalidIdentifierException;
import dev.veil.core.identity.PhoneNormalizer;
import java.util.Objects;

/**
 * A personal identifier as the caller has it: an email, a phone number (E.164, {@code +} and 10 to
 * 15 digits), or the SHA-256 hash of a normalized one (standard base64, or 64 hex digits).
 *
 * <p>The value is kept exactly as given; the server echoes it back in mapping answers and the
 * {@link MappingCache} keys its entries by it. {@link #hashed()} normalizes and hashes locally,
 * with the same code and golden vectors as the server, so raw PII never has to leave the caller:
 *
 * <pre>{@code
 * Identifier raw = Identifier.email(" Jane.Doe@Example.com ");
 * Identifier sent = raw.hashed();       // email_hash "…base64 of SHA-256(jane.doe@example.com)…"
 * }</pre>
 *
 * <p>Immutable and thread-safe. Equal when kind and value are equal. {@link #toString()} never
 * shows the value.
 */
public final class Identifier {
  private final IdentityInput kind;
  private final String value;

  private Identifier(IdentityInput kind, String value) {
    this.kind = Objects.requireNonNull(kind, "kind");
    this.value = Objects.requireNonNull(value, "value");
  }

  /** An email address, normalized by the server (or by {@link #hashed()}). */
  public static Identifier email(String email) {
    return new Identifier(IdentityInput.EMAIL, email);
  }

  /** The base64 (or hex) SHA-256 of a normalized email. */
  public static Identifier emailHash(String hash) {
    return new Identifier(IdentityInput.EMAIL_HASH, hash);
  }

  /** A phone number in E.164 form. */
  public static Identifier phone(String phone) {
    return new Identifier(IdentityInput.PHONE, phone);
  }

  /** The base64 (or hex) SHA-256 of a phone number in E.164 form. */
  public static Identifier phoneHash(String hash) {
    return new Identifier(IdentityInput.PHONE_HASH, hash);
  }

  /** An identifier of the given kind. */
  public static Identifier of(IdentityInput kind, String value) {
    return new Identifier(kind, value);
  }

  /** Which of the four request parameters carries it ({@code email}, {@code email_hash}, …). */
  public IdentityInput kind() {
    return kind;
  }

  /** The value exactly as given. */
  public String value() {
    return value;
  }

  /** Whether the server would accept it: it normalizes, or it is a well-formed hash. */
  public boolean isValid() {
    switch (kind) {
      case EMAIL -> {
        return EmailNormalizer.isValid(value);
      }
      case PHONE -> {
        return PhoneNormalizer.normalize(value).isPresent();
      }
      default -> {
        try {
          IdentityHash.parse(kind, value); // decodes only: no hashing for the hash kinds
          return true;
        } catch (InvalidIdentifierException e) {
          return false;
        }
      }
    }
  }

  /**
   * The hashed form: for an email or phone, the base64 SHA-256 of its normalized form, computed
   * here; a hash is returned unchanged. The server maps both forms to the same advertising id.
   *
   * @throws IllegalArgumentException if the value does not normalize (message without the value)
   */
  public Identifier hashed() {
    if (kind.isHash()) {
      return this;
    }
    IdentityHash hash;
    try {
      hash = IdentityHash.parse(kind, value);
    } catch (InvalidIdentifierException e) {
      throw new IllegalArgumentException("invalid " + kind.parameterName(), e);
    }
    return new Identifier(
        kind == IdentityInput.EMAIL ? IdentityInput.EMAIL_HASH : IdentityInput.PHONE_HASH,
        hash.toBase64());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Identifier other && other.kind == kind && other.value.equals(value);
  }

  @Override
  public int hashCode() {
    return 31 * kind.hashCode() + value.hashCode();
  }

  /** The kind only: the value identifies a person. */
  @Override
  public String toString() {
    return "Identifier{" + kind.parameterName() + ", <redacted>}";
  }
}
