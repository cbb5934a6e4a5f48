package dev.veil.server;

import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Times the phases of a node's start-up and logs each at debug level, as {@code event=startup
 * phase=<name> ms=<phase duration> since_process_start_ms=<time since the JVM process started>}
 * (run with {@code VEIL_LOG_LEVEL=DEBUG} to see them). The line carries names and durations only.
 * Not thread-safe: one instance per start, used by the thread that starts the node.
 */
final class StartupPhases {
  private static final Logger LOG = LoggerFactory.getLogger(StartupPhases.class);

  private long lastNanos = System.nanoTime();

  /** Ends the phase that ran since the previous call (or since construction). */
  void done(String phase) {
    long now = System.nanoTime();
    if (LOG.isDebugEnabled()) {
      LOG.debug(
          "event=startup phase={} ms={} since_process_start_ms={}",
          phase,
          (now - lastNanos) / 1_000_000,
          sinceProcessStartMillis());
    }
    lastNanos = now;
  }

  private static long sinceProcessStartMillis() {
    return ProcessHandle.current()
        .info()
        .startInstant()
        .map(start -> Duration.between(start, Instant.now()).toMillis())
        .orElse(-1L);
  }
}
