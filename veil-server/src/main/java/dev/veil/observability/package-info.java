/**
 * Observability: {@link dev.veil.observability.Metrics}, a small thread-safe registry of counters,
 * counter families, gauges and per-route HTTP request series rendered in the Prometheus text format
 * at {@code GET /metrics}, plus the JVM's and the process's figures ({@link
 * dev.veil.observability.JvmMetrics}, {@link dev.veil.observability.ProcessMetrics}) and {@link
 * dev.veil.observability.BuildInfo}, read when a scrape runs. No metrics library: the families use
 * the names of the Prometheus Java client's defaults.
 *
 * <p>The HTTP adapter records every request in one place (its request observer), not inside
 * handlers; the adapters count outcomes with counters they resolve when they are wired, so no
 * feature package imports a metrics type ({@code OptOutService} keeps a plain count of what it
 * recorded, which the composition root reports). {@link dev.veil.observability.LibraryLogs} brings
 * what gRPC and Netty log through {@code java.util.logging} into the application's structured log
 * (or silences it in the CLI); {@link dev.veil.observability.LibraryLogFilter} reduces what
 * libraries log through SLF4J to the same line. Neither lets a library's message text into the log.
 */
package dev.veil.observability;
