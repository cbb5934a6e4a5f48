/**
 * Observability: {@link dev.veil.observability.Metrics}, a small thread-safe registry of counters,
 * gauges and per-route HTTP request series rendered in the Prometheus text format at {@code
 * GET /metrics}. The HTTP adapter records every request in one place (its request observer), not
 * inside handlers.
 */
package dev.veil.observability;
