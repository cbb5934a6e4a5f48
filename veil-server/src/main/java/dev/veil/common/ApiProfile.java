package dev.veil.common;

/**
 * Which public-API behaviour to reproduce where Veil and the UID2 operator differ (docs/spec.md
 * 1.10). Everything not listed here is the same in both.
 */
public enum ApiProfile {
  /** The default: the behaviour docs/spec.md section 1 describes. */
  VEIL,
  /** Reproduces the UID2 operator's v1 behaviour for existing integrations. */
  UID2;

  /** The {@code status} word for bad input. */
  public String clientErrorStatus() {
    return this == UID2 ? "client_error" : "clienterror";
  }

  /**
   * Whether generate still issues tokens for an opted-out identity (the refresh ends the chain).
   */
  public boolean issuesTokensWhenOptedOut() {
    return this == UID2;
  }

  /**
   * Whether {@code GET /v1/identity/map} maps an opted-out identity instead of answering optout.
   */
  public boolean mapsOptedOutIdentities() {
    return this == UID2;
  }

  /** Whether {@code /v1/token/validate} needs a valid API key. */
  public boolean validateNeedsKey() {
    return this == VEIL;
  }
}
