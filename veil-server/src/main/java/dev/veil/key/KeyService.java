package dev.veil.key;

import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Owns the encryption keys: publishes the current {@link KeyRing}, creates keysets, rotates keys.
 *
 * <p>Reads ({@link #ring()}) are lock-free. Writers are serialized by this object's monitor; each
 * write goes to the store first (durable), then into a new ring. Changes written by other nodes
 * arrive through {@link #catchUp()}.
 */
public final class KeyService {
  private final KeyStore store;
  private final KeyPolicy policy;
  private final Clock clock;
  private final SecureRandom random;
  private final AtomicReference<KeyRing> ring = new AtomicReference<>(KeyRing.empty());
  private long lastSeq;

  public KeyService(KeyStore store, KeyPolicy policy, Clock clock, SecureRandom random) {
    this.store = store;
    this.policy = policy;
    this.clock = clock;
    this.random = random;
  }

  /** The current snapshot of keys. */
  public KeyRing ring() {
    return ring.get();
  }

  public KeyPolicy policy() {
    return policy;
  }

  /** Loads keys written since the last call (by this or another node). */
  public synchronized void catchUp() {
    List<Versioned<EncryptionKey>> changes = store.keysAfter(lastSeq);
    if (changes.isEmpty()) {
      return;
    }
    List<EncryptionKey> keys = new ArrayList<>(changes.size());
    for (Versioned<EncryptionKey> change : changes) {
      keys.add(change.value());
      lastSeq = Math.max(lastSeq, change.seq());
    }
    ring.set(ring.get().with(keys));
  }

  /**
   * Makes sure the master keyset, the refresh keyset and each of {@code siteIds} has a key that is
   * active now; a keyset without one gets a key that activates immediately.
   */
  public synchronized List<EncryptionKey> ensureKeysets(Collection<Integer> siteIds) {
    catchUp();
    Set<Integer> wanted = new LinkedHashSet<>();
    wanted.add(EncryptionKey.MASTER_SITE_ID);
    wanted.add(EncryptionKey.REFRESH_SITE_ID);
    wanted.addAll(siteIds);
    Instant now = clock.instant();
    List<EncryptionKey> created = new ArrayList<>();
    for (int siteId : wanted) {
      if (ring.get().activeKey(siteId, now).isEmpty()) {
        created.add(create(siteId, now, now));
      }
    }
    return created;
  }

  /** Creates the next key of every keyset whose newest key is due for rotation. */
  public synchronized List<EncryptionKey> rotateDue() {
    catchUp();
    Instant now = clock.instant();
    Duration dueAge = policy.rotationPeriod().minus(policy.activationDelay());
    List<EncryptionKey> created = new ArrayList<>();
    for (int siteId : List.copyOf(ring.get().siteIds())) {
      EncryptionKey newest = ring.get().newestKey(siteId).orElseThrow();
      if (!now.isBefore(newest.activates().plus(dueAge))) {
        created.add(create(siteId, now, now.plus(policy.activationDelay())));
      }
    }
    return created;
  }

  /**
   * Creates a new key now for each given keyset (all keysets when {@code siteIds} is empty); each
   * activates after the activation delay.
   */
  public synchronized List<EncryptionKey> rotateNow(Collection<Integer> siteIds) {
    catchUp();
    Instant now = clock.instant();
    Collection<Integer> targets = siteIds.isEmpty() ? List.copyOf(ring.get().siteIds()) : siteIds;
    List<EncryptionKey> created = new ArrayList<>();
    for (int siteId : targets) {
      created.add(create(siteId, now, now.plus(policy.activationDelay())));
    }
    return created;
  }

  private EncryptionKey create(int siteId, Instant now, Instant activates) {
    byte[] secret = new byte[32];
    random.nextBytes(secret);
    Duration protectedLifetime =
        siteId == EncryptionKey.REFRESH_SITE_ID
            ? policy.refreshTokenLifetime()
            : policy.advertisingTokenLifetime();
    Instant expires = activates.plus(policy.keyLifetime(protectedLifetime));
    // lastSeq is not advanced here: keys other nodes wrote meanwhile have lower numbers and must
    // still be read by the next catch-up, which reads this key again harmlessly.
    Versioned<EncryptionKey> stored = store.insert(siteId, now, activates, expires, secret);
    ring.set(ring.get().with(List.of(stored.value())));
    return stored.value();
  }
}
