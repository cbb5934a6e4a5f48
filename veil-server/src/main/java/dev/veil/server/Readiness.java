package dev.veil.server;

import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyService;
import java.time.Clock;

/**
 * Whether this node can serve requests: salts and keys are loaded and the master, refresh keysets
 * have an active key. Cheap; read by {@code /ops/readyz} and by handlers that need keys.
 */
public final class Readiness {
  private final KeyService keys;
  private final Clock clock;
  private volatile boolean loaded;
  private volatile boolean draining;

  public Readiness(KeyService keys, Clock clock) {
    this.keys = keys;
    this.clock = clock;
  }

  /** Called once the initial load of keys, salts, clients and opt-outs finished. */
  public void markLoaded() {
    loaded = true;
  }

  /** Called at shutdown: the node stops reporting ready so load balancers drain it. */
  public void markDraining() {
    draining = true;
  }

  /** Null when ready, otherwise a short reason safe to show. */
  public String notReadyReason() {
    if (draining) {
      return "shutting down";
    }
    if (!loaded) {
      return "loading";
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
