package dev.veil.webhook;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Sends one webhook request ({@code GET uri} with {@code headers}) and reports how the receiver
 * answered. Implemented over HTTP at the edge ({@code dev.veil.http.WebhookHttpSender}); tests may
 * supply their own. Must not block the caller, and bounds every request in time.
 */
public interface WebhookSender {
  /** What became of one request. */
  enum Outcome {
    /** The receiver answered 2xx: the opt-out is delivered. */
    DELIVERED,
    /** The receiver answered, with another status. */
    REFUSED,
    /** No answer: no connection, a reset, or no complete answer within the timeout. */
    UNREACHABLE
  }

  /** Sends the request; the future completes with the outcome, never exceptionally. */
  CompletableFuture<Outcome> send(URI uri, Map<String, String> headers);
}
