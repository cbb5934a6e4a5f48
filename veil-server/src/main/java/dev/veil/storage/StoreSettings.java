package dev.veil.storage;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of a {@link Store}, validated on construction.
 *
 * @param poolSize PostgreSQL: maximum pooled connections; embedded: reader connections (there is
 *     always exactly one writer). 1 to 64.
 * @param connectTimeout how long opening a connection (or waiting for a free one) may take
 * @param busyTimeout embedded only: how long a statement waits for a lock held by another process
 * @param socketTimeout PostgreSQL only: how long a single network read may block before the
 *     connection is considered dead, so an unreachable database fails writes instead of hanging
 *     them
 */
public record StoreSettings(
    int poolSize, Duration connectTimeout, Duration busyTimeout, Duration socketTimeout) {

  public StoreSettings {
    if (poolSize < 1 || poolSize > 64) {
      throw new IllegalArgumentException(
          "store pool size must be between 1 and 64, got " + poolSize);
    }
    requirePositive("connect timeout", connectTimeout);
    requirePositive("busy timeout", busyTimeout);
    requirePositive("socket timeout", socketTimeout);
  }

  /** Four connections, 10 s to connect, 5 s busy timeout, 60 s socket timeout. */
  public static StoreSettings defaults() {
    return new StoreSettings(
        4, Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(60));
  }

  public StoreSettings withPoolSize(int size) {
    return new StoreSettings(size, connectTimeout, busyTimeout, socketTimeout);
  }

  public StoreSettings withConnectTimeout(Duration timeout) {
    return new StoreSettings(poolSize, timeout, busyTimeout, socketTimeout);
  }

  private static void requirePositive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("store " + what + " must be positive, got " + d);
    }
  }
}
