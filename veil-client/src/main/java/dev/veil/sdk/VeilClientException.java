package dev.veil.sdk;

/**
 * Every failure of a call to a Veil server. There are exactly two kinds, so that a caller can
 * decide what to do without reading messages:
 *
 * <ul>
 *   <li>{@link VeilApiException}: the server answered and refused the request (HTTP status and
 *       Veil's {@code status} word, e.g. 401 {@code unauthorized}, 400 {@code clienterror}). Fix
 *       the request or the key; repeating it unchanged does not help, except after 429 or 503,
 *       which the client already retried.
 *   <li>{@link VeilTransportException}: no usable answer arrived (connection refused, reset, timed
 *       out, body cut off), after the configured retries.
 * </ul>
 *
 * <p>Expected outcomes are not exceptions: an opted-out user, an invalid or expired refresh token,
 * an unmapped identifier and a rejected advertising token are returned as values. Messages never
 * contain identifiers, tokens or keys.
 */
public abstract sealed class VeilClientException extends RuntimeException
    permits VeilApiException, VeilTransportException {
  private static final long serialVersionUID = 1L;

  private final int attempts;

  VeilClientException(String message, Throwable cause, int attempts) {
    super(message, cause);
    this.attempts = attempts;
  }

  /** How many times the request was sent (1 when it was not retried). */
  public int attempts() {
    return attempts;
  }
}
