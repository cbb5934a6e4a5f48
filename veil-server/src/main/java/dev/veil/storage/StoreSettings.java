package dev.veil.storage;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of a {@link Store}, validated on construction.
 *
 * @param poolSize PostgreSQL: maximum pooled connections; embedded: reader connections (there is
 *     always exactly one writer). 1 to 64.
 * @param timeout PostgreSQL: the longest a connection attempt, a wait for a pooled connection or
 *     one statement may take (the server cancels a longer statement); a network that stops
 *     answering mid-call is given up {@link #SOCKET_MARGIN} later. So a call never blocks much
 *     longer than this while the database is unreachable, and, once a call has seen it
 *     unreachable, later calls fail at once until it answers again. Embedded: the longest a read
 *     waits for a free reader connection.
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
