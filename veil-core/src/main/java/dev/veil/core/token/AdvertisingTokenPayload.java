package dev.veil.core.token;

import dev.veil.core.identity.IdentityType;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * Everything an advertising token carries. Times are truncated to whole milliseconds, as on the
 * wire, so a decoded payload equals the one that was encoded. The advertising id (32 bytes) is
 * copied in and out; {@link #toString()} does not show it.
 *
 * @param identityType email or phone; its prefix is the token's first byte
 * @param expires when the token stops being valid (not checked by the codec)
 * @param created when this token was issued
 * @param operator the issuing node
 * @param publisher the publisher it was issued to; its site id selects the inner key
 * @param privacyBits opaque flags, carried unchanged; {@link AdvertisingTokenCodec} accepts only
 *     the low 24 bits (0 to 0xFFFFFF), because the top byte of the field carries the identity
 *     prefix on the wire
 * @param established when the identity first got a token in this chain
 * @param refreshed when the chain was last refreshed
 * @param advertisingId the 32-byte advertising id
 */
@SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
public record AdvertisingTokenPayload(
    IdentityType identityType,
    Instant expires,
    Instant created,
    OperatorInfo operator,
    PublisherInfo publisher,
    int privacyBits,
    Instant established,
    Instant refreshed,
    byte[] advertisingId) {
  /** Length of the advertising id in bytes. */
  public static final int ADVERTISING_ID_BYTES = 32;

  /**
   * Validates and normalizes the fields.
   *
   * @throws NullPointerException if any reference is null
   * @throws IllegalArgumentException if the advertising id is not 32 bytes or a time does not fit
   *     in 64-bit epoch milliseconds
   */
  public AdvertisingTokenPayload {
    Objects.requireNonNull(identityType, "identityType");
    Objects.requireNonNull(operator, "operator");
    Objects.requireNonNull(publisher, "publisher");
    expires = EpochMillis.truncate(expires, "expires");
    created = EpochMillis.truncate(created, "created");
    established = EpochMillis.truncate(established, "established");
    refreshed = EpochMillis.truncate(refreshed, "refreshed");
    if (advertisingId.length != ADVERTISING_ID_BYTES) {
      throw new IllegalArgumentException(
          "advertising id must be " + ADVERTISING_ID_BYTES + " bytes");
    }
    advertisingId = advertisingId.clone();
  }

  /** A copy of the 32-byte advertising id. */
  @Override
  public byte[] advertisingId() {
    return advertisingId.clone();
  }

  /** Puts the 32-byte advertising id into {@code out} without a copy (the codec's encoder). */
  void putAdvertisingId(ByteBuffer out) {
    out.put(advertisingId);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AdvertisingTokenPayload p
        && p.identityType == identityType
        && p.expires.equals(expires)
        && p.created.equals(created)
        && p.operator.equals(operator)
        && p.publisher.equals(publisher)
        && p.privacyBits == privacyBits
        && p.established.equals(established)
        && p.refreshed.equals(refreshed)
        && Arrays.equals(p.advertisingId, advertisingId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
                identityType,
                expires,
                created,
                operator,
                publisher,
                privacyBits,
                established,
                refreshed)
            * 31
        + Arrays.hashCode(advertisingId);
  }

  /** All fields except the advertising id. */
  @Override
  public String toString() {
    return "AdvertisingTokenPayload{identityType="
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
        + ", refreshed="
        + refreshed
        + ", advertisingId=<redacted>}";
  }
}
