package dev.veil.token;

import java.time.Instant;

/** A token pair as returned by generate and refresh. {@link #toString()} hides the tokens. */
public record IdentityTokens(
    String advertisingToken, String refreshToken, Instant identityExpires, Instant refreshFrom, Instant refreshExpires) {
  @Override
  public String toString() {
    return "IdentityTokens{identityExpires=" + identityExpires + ", refreshFrom=" + refreshFrom
        + ", refreshExpires=" + refreshExpires + ", tokens=<redacted>}";
  }
}
