package dev.veil.core.token;

import dev.veil.core.identity.IdentityType;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * Everything a refresh token carries. Times are truncated to whole milliseconds, as on the wire, so
 * a decoded payload equals the one that was encoded. The first-level hash (32 bytes, a secret
 * derived from the identity) is copied in and out, compared in constant time and never shown by
 * {@link #toString()}.
 *
 * @param identityType email or phone; its prefix is written twice (header and payload)
 * @param expires when the refresh token stops being valid (not checked by the codec)
 * @param created when this token was issued
 * @param operator the issuing node
 * @param publisher the publisher the chain belongs to
 * @param privacyBits opaque flags, carried unchanged
 * @param established when the identity first got a token in this chain
 * @param firstLevelHash the identity's 32-byte first-level hash
 */
@SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
public record RefreshTokenPayload(
    IdentityType identityType,
    Instant expires,
    Instant created,
    OperatorInfo operator,
    PublisherInfo publisher,
    int privacyBits,
    Instant established,
    byte[] firstLevelHash) {
  /** Length of the first-level hash in bytes. */
  public static final int FIRST_LEVEL_HASH_BYTES = 32;

  /**
   * Validates and normalizes the fields.
   *
   * @throws NullPointerException if any reference is null
   * @throws IllegalArgumentException if the hash is not 32 bytes or a time does not fit in 64-bit
   *     epoch milliseconds
   */
  public RefreshTokenPayload {
    Objects.requireNonNull(identityType, "identityType");
    Objects.requireNonNull(operator, "operator");
    Objects.requireNonNull(publisher, "publisher");
    expires = EpochMillis.truncate(expires, "expires");
    created = EpochMillis.truncate(created, "created");
    established = EpochMillis.truncate(established, "established");
    if (firstLevelHash.length != FIRST_LEVEL_HASH_BYTES) {
      throw new IllegalArgumentException(
          "first-level hash must be " + FIRST_LEVEL_HASH_BYTES + " bytes");
    }
    firstLevelHash = firstLevelHash.clone();
  }

  /** A copy of the 32-byte first-level hash. */
  @Override
  public byte[] firstLevelHash() {
    return firstLevelHash.clone();
  }

  /** Puts the 32-byte first-level hash into {@code out} without a copy (the codec's encoder). */
  void putFirstLevelHash(ByteBuffer out) {
    out.put(firstLevelHash);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RefreshTokenPayload p
        && p.identityType == identityType
        && p.expires.equals(expires)
        && p.created.equals(created)
        && p.operator.equals(operator)
        && p.publisher.equals(publisher)
        && p.privacyBits == privacyBits
        && p.established.equals(established)
        && MessageDigest.isEqual(p.firstLevelHash, firstLevelHash);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
                identityType, expires, created, operator, publisher, privacyBits, established)
            * 31
        + Arrays.hashCode(firstLevelHash);
  }

  /** All fields except the first-level hash. */
  @Override
  public String toString() {
    return "RefreshTokenPayload{identityType="
        + identityType
        + ", expires="
        + expires
        + ", created="
        + created
        + ", operator="
        + operator
        + ", publisher="
        + publisher
        + ", privacyBits="
        + privacyBits
        + ", established="
        + established
        + ", firstLevelHash=<redacted>}";
  }
}
