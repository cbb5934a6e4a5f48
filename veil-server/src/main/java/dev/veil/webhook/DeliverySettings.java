package dev.veil.webhook;

import java.time.Duration;

/**
 * How webhook delivery paces itself ({@code webhook.*} settings, docs/configuration.md).
 *
 * @param pollInterval how often the delivering node looks for new opt-outs once it has sent every
 *     one (the other nodes try to take delivery over once a second, or this often if longer)
 * @param timeout a request without a complete answer by then counts as unreachable
 * @param maxBackoff the longest wait between retries to a failing receiver
 * @param concurrency requests in flight at once per webhook while its receiver answers 2xx
 * @param batchSize opt-outs read from the log at once per webhook
 */
public record DeliverySettings(
    Duration pollInterval, Duration timeout, Duration maxBackoff, int concurrency, int batchSize) {
  /** The first retry's wait; each further failure doubles it, up to {@code maxBackoff}. */
  public static final Duration FIRST_BACKOFF = Duration.ofMillis(500);

  public DeliverySettings {
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException("pollInterval must be positive");
    }
    if (concurrency < 1 || batchSize < 1) {
      throw new IllegalArgumentException("concurrency and batchSize must be positive");
    }
  }

  /** The wait after {@code failures} consecutive failures (at least 1). */
  public Duration backoff(int failures) {
    int doublings = Math.min(Math.max(failures, 1) - 1, 30);
    Duration wait = FIRST_BACKOFF.multipliedBy(1L << doublings);
    return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
  }
}
