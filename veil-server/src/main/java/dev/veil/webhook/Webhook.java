package dev.veil.webhook;

import java.time.Instant;

/**
 * A registered webhook as administrators see it (never its secret).
 *
 * @param id assigned by the store, never reused
 * @param clientId the API client (the bidder) it belongs to
 * @param url where opt-outs are sent
 * @param createdAt when it was registered; it receives the opt-outs recorded from then on
 */
public record Webhook(long id, long clientId, WebhookUrl url, Instant createdAt) {}
