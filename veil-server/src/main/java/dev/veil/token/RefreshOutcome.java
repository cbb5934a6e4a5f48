package dev.veil.token;

/**
 * What refresh decided (docs/spec.md 1.4, checks in this order: Invalid, Expired, OptedOut,
 * Refreshed).
 */
public sealed interface RefreshOutcome {
  /** Cannot be decoded, unknown key id, or tampered. */
  record Invalid() implements RefreshOutcome {}

  /** Past its {@code refresh_expires}. */
  record Expired() implements RefreshOutcome {}

  /** The identity opted out, or it is a test identity that ends its chain on refresh. */
  record OptedOut() implements RefreshOutcome {}

  record Refreshed(IdentityTokens tokens) implements RefreshOutcome {}
}
