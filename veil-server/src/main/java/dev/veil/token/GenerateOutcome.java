package dev.veil.token;

/** What generate decided: tokens, or the identity has opted out. */
public sealed interface GenerateOutcome {
  record Generated(IdentityTokens tokens) implements GenerateOutcome {}

  record OptedOut() implements GenerateOutcome {}
}
