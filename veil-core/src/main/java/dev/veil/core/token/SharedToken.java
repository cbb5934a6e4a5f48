package dev.veil.core.token;

import dev.veil.core.identity.IdentityType;
import java.time.Instant;

/**
 * What a reader of tokens from any writer learns from one ({@link SharedTokenDecoder}): the fields
 * of UID2's V4 layout a bidder or a receiver of shared tokens checks, and the raw id, whose length
 * is the writer's choice (Veil writes 32 bytes, UID2 33). {@link #toString()} does not show the id.
 *
 * @param identityType email or phone, from the token's first byte
 * @param expires when the token stops being valid (not checked by the decoder)
 * @param created when the token was made (UID2 calls it "generated")
 * @param siteId the site the token was made for; its keyset's key opened the inner layer
 * @param siteKeyId the key that opened the inner layer
 * @param privacyBits the writer's privacy bits (bit 1: generated in a browser), without the
 *     identity prefix Veil's writer keeps in the top byte
 * @param established when the identity first got a token in this chain
 * @param rawId the advertising id (raw UID), 32 to 64 bytes
 */
@SuppressWarnings("ArrayRecordComponent") // its array is never compared
public record SharedToken(
    IdentityType identityType,
    Instant expires,
    Instant created,
    int siteId,
    int siteKeyId,
    int privacyBits,
    Instant established,
    byte[] rawId) {

  public SharedToken {
    rawId = rawId.clone();
  }

  @Override
  public byte[] rawId() {
    return rawId.clone();
  }

  @Override
  public String toString() {
    return "SharedToken{type="
        + identityType
        + ", siteId="
        + siteId
        + ", created="
        + created
        + ", expires="
        + expires
        + ", rawId=<redacted>}";
  }
}
