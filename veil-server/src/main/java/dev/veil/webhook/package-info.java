/**
 * Opt-out webhooks (docs/spec.md 4.1): bidders register a URL, and every opt-out, recorded through
 * any node, is sent to it at least once, signed.
 *
 * <ul>
 *   <li>{@link dev.veil.webhook.WebhookService}: register (with a secret shown once), list, delete.
 *   <li>{@link dev.veil.webhook.WebhookStore}: webhooks with their durable cursors, and the opt-out
 *       log in delivery order. The opt-out table is the outbox: a cursor per webhook, no row per
 *       opt-out and webhook.
 *   <li>{@link dev.veil.webhook.WebhookDispatcher}: the delivery thread, on one node at a time (the
 *       store's job lock); {@code WebhookLane}: one webhook's window, concurrency, backoff and
 *       cursor.
 *   <li>{@link dev.veil.webhook.WebhookUrl}, {@link dev.veil.webhook.WebhookSecret}: what is
 *       registered; the signature itself is {@link dev.veil.core.webhook.WebhookSignature}, shared
 *       with the Java client.
 *   <li>{@link dev.veil.webhook.WebhookSender}: the request, implemented over HTTP at the edge.
 * </ul>
 */
package dev.veil.webhook;
