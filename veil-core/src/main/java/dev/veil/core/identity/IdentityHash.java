package dev.veil.core.identity;

import dev.veil.core.crypto.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;

/**
 * The SHA-256 of a normalized identifier, with the kind of identifier it came from. This is the
 * value every identity operation starts from: an email and the base64 hash of that email give equal
 * {@code IdentityHash}es.
 *
 * <p>Immutable and thread-safe. The bytes are copied in and out, compared in constant time, and
 * never shown by {@link #toString()} (they identify a person).
 */
public final class IdentityHash {
  /** Length of the hash in bytes. */
  public static final int BYTES = Sha256.BYTES;

  private final IdentityType type;
  private final byte[] hash;

  private IdentityHash(IdentityType type, byte[] hash) {
    this.type = type;
    this.hash = hash;
  }

  /**
   * Parses a request value. {@link IdentityInput#EMAIL} and {@link IdentityInput#PHONE} values are
   * normalized ({@link EmailNormalizer}, {@link PhoneNormalizer}) and hashed with SHA-256 over
   * their UTF-8 bytes. {@code *_HASH} values must spell exactly 32 bytes as standard base64 (44
   * characters with padding, or 43 without; canonical) or as 64 hex digits (either case); a base64
   * value whose {@code +} arrived as a space is invalid.
   *
   * @throws InvalidIdentifierException if the value is null, does not normalize, or is not an
   *     accepted hash form; the message never contains the value
   */
  public static IdentityHash parse(IdentityInput input, String value) {
    Objects.requireNonNull(input, "input");
    if (value == null) {
      throw new InvalidIdentifierException(input);
    }
    if (input.isHash()) {
      byte[] bytes = HashText.decode(value);
      if (bytes == null) {
        throw new InvalidIdentifierException(input);
      }
      return new IdentityHash(input.type(), bytes);
    }
    Optional<String> normalized =
        input.type() == IdentityType.EMAIL
            ? EmailNormalizer.normalize(value)
            : PhoneNormalizer.normalize(value);
    String identifier = normalized.orElseThrow(() -> new InvalidIdentifierException(input));
    return new IdentityHash(
        input.type(), Sha256.digest(identifier.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * An identity hash from its parts; {@code hash32} is copied.
   *
   * @throws IllegalArgumentException if {@code hash32} is not 32 bytes
   */
  public static IdentityHash of(IdentityType type, byte[] hash32) {
    Objects.requireNonNull(type, "type");
    if (hash32.length != BYTES) {
      throw new IllegalArgumentException("identity hash must be " + BYTES + " bytes");
    }
    return new IdentityHash(type, hash32.clone());
  }

  /** The kind of identifier that was hashed. */
  public IdentityType type() {
    return type;
  }

  /** A copy of the 32 hash bytes. */
  public byte[] toBytes() {
    return hash.clone();
  }

  /**
   * Writes SHA-256(hash || {@code suffix}) to {@code out[outOff, outOff+32)}: the first step of
   * every derivation from an identity, without copying the hash out.
   */
  public void digestWithSuffix(byte[] suffix, byte[] out, int outOff) {
    Sha256.digestInto(hash, suffix, 0, suffix.length, out, outOff);
  }

  /** The hash in standard base64 with padding (44 characters). */
  public String toBase64() {
    return Base64.getEncoder().encodeToString(hash);
  }

  /** Equal when the type and all 32 bytes are equal; the bytes are compared in constant time. */
  @Override
  public boolean equals(Object o) {
    return o instanceof IdentityHash other
        && other.type == type
        && MessageDigest.isEqual(other.hash, hash);
  }

  @Override
  @SuppressWarnings("EnumOrdinal") // a hash for this process's maps, never stored
  public int hashCode() {
    int firstFourBytes =
        (hash[0] << 24) | ((hash[1] & 0xFF) << 16) | ((hash[2] & 0xFF) << 8) | (hash[3] & 0xFF);
    return 31 * type.ordinal() + firstFourBytes;
  }

  /** Shows the type only; the hash identifies a person and is never printed. */
  @Override
  public String toString() {
    return "IdentityHash{type=" + type + ", hash=<redacted>}";
  }
}
