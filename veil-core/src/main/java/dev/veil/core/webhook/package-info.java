/**
 * The signature of Veil's opt-out webhook requests, which the server computes and bidders verify:
 * {@link dev.veil.core.webhook.WebhookSignature}. Shared by the server and the Java client so that
 * both agree byte for byte (docs/spec.md 4.1). JDK only.
 */
package dev.veil.core.webhook;
