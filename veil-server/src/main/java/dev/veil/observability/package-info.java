/**
 * Observability: {@link dev.veil.observability.Metrics}, a small thread-safe registry of counters,
 * gauges and per-route HTTP request series rendered in the Prometheus text format at {@code
 * GET /metrics}. The HTTP adapter records every request in one place (its request observer), not
 * inside handlers. {@link dev.veil.observability.LibraryLogs} brings what gRPC and Netty log through
 * {@code java.util.logging} into the application's structured log (or silences it in the CLI);
 * {@link dev.veil.observability.LibraryLogFilter} reduces what libraries log through SLF4J to the
 * same line. Neither lets a library's message text into the log.
 */
package dev.veil.observability;
