package dev.veil.observability;

import dev.veil.config.DurationFormat;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Whether this node can serve requests: keys, salts, clients and opt-outs are loaded, the master
 * and refresh keysets have an active key, and the in-memory data is not older than {@code
 * sync.max-staleness} (the last successful catch-up with the store started less than that long
 * ago). A node whose store is unreachable keeps answering from memory and stays ready until then;
 * past it, load balancers should route elsewhere, because the node may not know newer keys, clients
 * and opt-outs. Cheap and thread-safe; read by {@code /ops/readyz} and {@code /metrics}.
 */
public final class Readiness {
  private final KeyService keys;
  private final Clock clock;
  private final Duration maxStaleness;
  private volatile boolean loaded;
  private volatile boolean draining;
  private volatile Instant lastSync;

  public Readiness(KeyService keys, Clock clock, Duration maxStaleness) {
    this.keys = keys;
    this.clock = clock;
    this.maxStaleness = maxStaleness;
    this.lastSync = clock.instant();
  }

  /** Called once the initial load of keys, salts, clients and opt-outs finished. */
  public void markLoaded() {
    loaded = true;
  }

  /** Called at shutdown: the node stops reporting ready so load balancers drain it. */
  public void markDraining() {
    draining = true;
  }

  /**
   * Records a successful catch-up with the store that started at {@code startedAt}: the node's data
   * includes everything committed before then. An earlier time than the last one recorded is
   * ignored.
   */
  public void recordSync(Instant startedAt) {
    synchronized (this) {
      if (startedAt.isAfter(lastSync)) {
        lastSync = startedAt;
      }
    }
  }

  /** When the last successful catch-up started. */
  public Instant lastSync() {
    return lastSync;
  }

  /** How old the in-memory data may be: time since the last successful catch-up started. */
  public Duration syncAge() {
    Duration age = Duration.between(lastSync, clock.instant());
    return age.isNegative() ? Duration.ZERO : age;
  }

  /** Null when ready, otherwise a short reason safe to show. */
  public String notReadyReason() {
    if (draining) {
      return "shutting down";
    }
    if (!loaded) {
      return "loading";
    }
    Duration age = syncAge();
    if (age.compareTo(maxStaleness) > 0) {
      return "data not synced with the store for "
          + DurationFormat.format(age.truncatedTo(ChronoUnit.SECONDS))
          + " (sync.max-staleness "
          + DurationFormat.format(maxStaleness)
          + "); is the store reachable?";
    }
    var ring = keys.ring();
    var now = clock.instant();
    if (ring.activeKey(EncryptionKey.MASTER_SITE_ID, now).isEmpty()
        || ring.activeKey(EncryptionKey.REFRESH_SITE_ID, now).isEmpty()) {
      return "no active encryption key";
    }
    return null;
  }

  public boolean isReady() {
    return notReadyReason() == null;
  }
}
