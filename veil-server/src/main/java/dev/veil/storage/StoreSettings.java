package dev.veil.storage;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of a {@link Store}, validated on construction.
 *
 * @param poolSize PostgreSQL: maximum pooled connections; embedded: reader connections (there is
 *     always exactly one writer). 1 to 64.
 * @param timeout PostgreSQL: the longest a connection attempt takes; for a request's call, the
 *     whole call (the request's {@link dev.veil.common.Deadline} is this long from its arrival);
 *     for a call without a deadline (start, catch-up, jobs), the longest it waits for a pooled
 *     connection and one statement takes (the server cancels a longer statement), with a network
 *     that stops answering mid-call given up {@link #SOCKET_MARGIN} later. Once a call has seen the
 *     database unreachable, later calls fail at once until it answers again. Embedded: the longest
 *     a read waits for a free reader connection.
 * @param busyTimeout embedded only: how long a statement waits for a lock held by another process
 */
public record StoreSettings(int poolSize, Duration timeout, Duration busyTimeout) {
  /** How much longer than {@link #timeout} a PostgreSQL read from the network may block. */
  public static final Duration SOCKET_MARGIN = Duration.ofSeconds(10);

  public StoreSettings {
    if (poolSize < 1 || poolSize > 64) {
      throw new IllegalArgumentException(
          "store pool size must be between 1 and 64, got " + poolSize);
    }
    requirePositive("timeout", timeout);
    requirePositive("busy timeout", busyTimeout);
  }

  /** Four connections, 5 s timeout, 5 s busy timeout. */
  public static StoreSettings defaults() {
    return new StoreSettings(4, Duration.ofSeconds(5), Duration.ofSeconds(5));
  }

  public StoreSettings withPoolSize(int size) {
    return new StoreSettings(size, timeout, busyTimeout);
  }

  public StoreSettings withTimeout(Duration t) {
    return new StoreSettings(poolSize, t, busyTimeout);
  }

  /**
   * PostgreSQL: how long the pool's check of an idle connection may take, a quarter of {@link
   * #timeout} between 250 ms and 1 s. A request's wait for a pooled connection leaves this much of
   * its deadline for the check that may follow it.
   */
  Duration validationTimeout() {
    long quarter = timeout.toMillis() / 4;
    return Duration.ofMillis(Math.max(250, Math.min(1000, quarter)));
  }

  /** PostgreSQL: the socket timeout, {@link #timeout} plus {@link #SOCKET_MARGIN}. */
  Duration socketTimeout() {
    return timeout.plus(SOCKET_MARGIN);
  }

  private static void requirePositive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("store " + what + " must be positive, got " + d);
    }
  }
}
