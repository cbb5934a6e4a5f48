package dev.veil.sdk;

/**
 * A webhook request that {@link WebhookVerifier} refuses: not signed by the Veil that holds the
 * webhook's secret, signed too long ago (or ahead), or without the opt-out's parameters. Answer
 * such a request with an error (401 or 400): a real opt-out is sent again until it is accepted. The
 * message names what is wrong and never contains the secret.
 */
public final class WebhookVerificationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  WebhookVerificationException(String message) {
    super(message);
  }
}
