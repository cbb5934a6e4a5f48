package dev.veil.sdk;

import java.util.Optional;

/**
 * What generate or refresh came to. Generate gives {@link Issued} or {@link OptedOut}; refresh can
 * also give {@link InvalidToken} or {@link ExpiredToken}.
 *
 * <pre>{@code
 * TokenOutcome outcome = publisher.refresh(session.refreshToken());
 * if (outcome instanceof TokenOutcome.Issued issued) {
 *   session.store(issued.tokens());
 * } else {
 *   session.clearTokens();   // opted out, expired or invalid: the chain has ended
 * }
 * }</pre>
 */
public sealed interface TokenOutcome
    permits TokenOutcome.Issued,
        TokenOutcome.OptedOut,
        TokenOutcome.InvalidToken,
        TokenOutcome.ExpiredToken {

  /** The new tokens, if any were issued. */
  default Optional<IdentityTokens> issuedTokens() {
    return this instanceof Issued issued ? Optional.of(issued.tokens()) : Optional.empty();
  }

  /** A new token pair. */
  record Issued(IdentityTokens tokens) implements TokenOutcome {}

  /** The user opted out: no tokens, and any refresh chain of theirs has ended. */
  record OptedOut() implements TokenOutcome {}

  /**
   * The refresh token cannot be decrypted or parsed, or was not issued by this Veil. Without an API
   * key the server does not say whether a bad token was invalid or expired; this is reported then.
   */
  record InvalidToken() implements TokenOutcome {}

  /** The refresh token is past its expiry; the user must log in again. */
  record ExpiredToken() implements TokenOutcome {}
}
