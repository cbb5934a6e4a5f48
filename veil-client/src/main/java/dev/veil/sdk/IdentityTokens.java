package dev.veil.sdk;

import java.time.Instant;
import java.util.Objects;

/**
 * A token pair from generate or refresh. Hand {@link #advertisingToken()} unchanged to bidders;
 * keep {@link #refreshToken()} to get the next pair from {@link #refreshFrom()} on, until {@link
 * #refreshExpires()}. For the browser SDK, pass the whole generate body instead (see
 * docs/browser-sdk.md).
 *
 * @param advertisingToken opaque, base64url; what bidders decrypt
 * @param refreshToken opaque, standard base64; for {@link PublisherClient#refresh}
 * @param identityExpires when the advertising token stops being valid
 * @param refreshFrom when refreshing is worthwhile
 * @param refreshExpires when the refresh token stops working (the user must log in again)
 */
public record IdentityTokens(
    String advertisingToken,
    String refreshToken,
    Instant identityExpires,
    Instant refreshFrom,
    Instant refreshExpires) {
  /** Checks the fields: none may be null. */
  public IdentityTokens {
    Objects.requireNonNull(advertisingToken, "advertisingToken");
    Objects.requireNonNull(refreshToken, "refreshToken");
    Objects.requireNonNull(identityExpires, "identityExpires");
    Objects.requireNonNull(refreshFrom, "refreshFrom");
    Objects.requireNonNull(refreshExpires, "refreshExpires");
  }

  /** Times only: tokens are credentials of a user. */
  @Override
  public String toString() {
    return "IdentityTokens{identityExpires="
        + identityExpires
        + ", refreshFrom="
        + refreshFrom
        + ", refreshExpires="
        + refreshExpires
        + ", tokens=<redacted>}";
  }
}
