package dev.veil.token;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * A token pair as returned by generate and refresh, with its times. The tokens are held as their
 * US-ASCII text, which response writers copy straight into a response ({@link
 * #copyAdvertisingToken}, {@link #copyRefreshToken}); {@link #advertisingToken()} and {@link
 * #refreshToken()} make strings of them. Immutable; {@link #toString()} hides the tokens.
 */
public final class IdentityTokens {
  private final byte[] advertisingToken;
  private final byte[] refreshToken;
  private final Instant identityExpires;
  private final Instant refreshFrom;
  private final Instant refreshExpires;

  /** Takes ownership of both arrays, which hold US-ASCII token text. */
  IdentityTokens(
      byte[] advertisingToken,
      byte[] refreshToken,
      Instant identityExpires,
      Instant refreshFrom,
      Instant refreshExpires) {
    this.advertisingToken = advertisingToken;
    this.refreshToken = refreshToken;
    this.identityExpires = identityExpires;
    this.refreshFrom = refreshFrom;
    this.refreshExpires = refreshExpires;
  }

  public String advertisingToken() {
    return new String(advertisingToken, StandardCharsets.US_ASCII);
  }

  public String refreshToken() {
    return new String(refreshToken, StandardCharsets.US_ASCII);
  }

  public int advertisingTokenLength() {
    return advertisingToken.length;
  }

  public int refreshTokenLength() {
    return refreshToken.length;
  }

  /**
   * Copies the advertising token's text to {@code out} at {@code off}; returns the offset after it.
   */
  public int copyAdvertisingToken(byte[] out, int off) {
    System.arraycopy(advertisingToken, 0, out, off, advertisingToken.length);
    return off + advertisingToken.length;
  }

  /** Copies the refresh token's text to {@code out} at {@code off}; returns the offset after it. */
  public int copyRefreshToken(byte[] out, int off) {
    System.arraycopy(refreshToken, 0, out, off, refreshToken.length);
    return off + refreshToken.length;
  }

  public Instant identityExpires() {
    return identityExpires;
  }

  public Instant refreshFrom() {
    return refreshFrom;
  }

  public Instant refreshExpires() {
    return refreshExpires;
  }

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
