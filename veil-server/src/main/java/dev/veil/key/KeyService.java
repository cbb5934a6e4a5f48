package dev.veil.key;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Deadline;
import dev.veil.core.token.EncryptionKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Owns the encryption keys: publishes the current {@link KeyRing}, creates keysets, rotates keys.
 *
 * <p>Reads ({@link #ring()}) are lock-free. Writers and {@link #catchUp()} (which brings in the
 * changes other nodes wrote) are serialized by one lock; each write goes to the store first
 * (durable), then into a new ring. A request's write waits for the lock no longer than its {@link
 * Deadline} (the catch-up may hold it while the store does not answer).
 *
 * <p>Never twice: every new key names the key it succeeds in its keyset (the newest one this node
 * knew), and the store keeps at most one successor per key. A rotation decided twice from the same
 * state (two nodes, or a node resuming after a pause with an old ring) therefore creates one key;
 * the loser gets the winner's key back and uses it.
 */
public final class KeyService {
  private final KeyStore store;
  private final KeyPolicy policy;
  private final Clock clock;
  private final SecureRandom random;
  private final AtomicReference<KeyRing> ring = new AtomicReference<>(KeyRing.empty());
  private final ReentrantLock lock = new ReentrantLock();
  private ChangeCursor cursor = ChangeCursor.START;

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
  public void catchUp() {
    locked(this::readChanges);
  }

  private Void readChanges() {
    KeyRing before = ring.get();
    List<EncryptionKey> keys = new ArrayList<>();
    cursor =
        store.forEachChange(
            cursor,
            v -> {
              if (!v.value().equals(before.byId(v.value().id()))) {
                keys.add(
                    v.value()); // keys never change once written: a key delivered again is skipped
              }
            });
    ring.set(ring.get().with(keys));
    return null;
  }

  /**
   * Makes sure the master keyset, the refresh keyset and each of {@code siteIds} has a key that is
   * active now; a keyset without one gets a key that activates immediately.
   */
  public List<EncryptionKey> ensureKeysets(Collection<Integer> siteIds) {
    return locked(() -> ensureLocked(siteIds));
  }

  private List<EncryptionKey> ensureLocked(Collection<Integer> siteIds) {
    readChanges();
    Set<Integer> wanted = new LinkedHashSet<>();
    wanted.add(EncryptionKey.MASTER_SITE_ID);
    wanted.add(EncryptionKey.REFRESH_SITE_ID);
    wanted.addAll(siteIds);
    Instant now = clock.instant();
    List<EncryptionKey> created = new ArrayList<>();
    for (int siteId : wanted) {
      if (ring.get().activeKey(siteId, now).isEmpty()) {
        create(siteId, now, now).ifPresent(created::add);
      }
    }
    return created;
  }

  /** Creates the next key of every keyset whose newest key is due for rotation. */
  public List<EncryptionKey> rotateDue() {
    return locked(this::rotateDueLocked);
  }

  private List<EncryptionKey> rotateDueLocked() {
    readChanges();
    Instant now = clock.instant();
    Duration dueAge = policy.rotationPeriod().minus(policy.activationDelay());
    List<EncryptionKey> created = new ArrayList<>();
    for (int siteId : List.copyOf(ring.get().siteIds())) {
      EncryptionKey newest = ring.get().newestKey(siteId).orElseThrow();
      if (!now.isBefore(newest.activates().plus(dueAge))) {
        create(siteId, now, now.plus(policy.activationDelay())).ifPresent(created::add);
      }
    }
    return created;
  }

  /**
   * Creates a new key now for each given keyset (all keysets when {@code siteIds} is empty); each
   * activates after the activation delay. Returns the new keys; a keyset that another node rotated
   * at the same moment returns that node's key.
   */
  public List<EncryptionKey> rotateNow(Collection<Integer> siteIds) {
    return locked(() -> rotateNowLocked(siteIds));
  }

  private List<EncryptionKey> rotateNowLocked(Collection<Integer> siteIds) {
    readChanges();
    Instant now = clock.instant();
    Collection<Integer> targets = siteIds.isEmpty() ? List.copyOf(ring.get().siteIds()) : siteIds;
    List<EncryptionKey> rotated = new ArrayList<>();
    for (int siteId : targets) {
      KeyStore.Inserted inserted = insertNext(siteId, now, now.plus(policy.activationDelay()));
      rotated.add(inserted.key().value());
    }
    return rotated;
  }

  private <T> T locked(Supplier<T> work) {
    Deadline.lock(lock, "the key ring's lock");
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }

  /** Inserts the successor of the keyset's newest key; empty if another node already had. */
  private Optional<EncryptionKey> create(int siteId, Instant now, Instant activates) {
    KeyStore.Inserted inserted = insertNext(siteId, now, activates);
    return inserted.created() ? Optional.of(inserted.key().value()) : Optional.empty();
  }

  private KeyStore.Inserted insertNext(int siteId, Instant now, Instant activates) {
    byte[] secret = new byte[32];
    random.nextBytes(secret);
    Duration protectedLifetime =
        siteId == EncryptionKey.REFRESH_SITE_ID
            ? policy.refreshTokenLifetime()
            : policy.advertisingTokenLifetime();
    Instant expires = activates.plus(policy.keyLifetime(protectedLifetime));
    int predecessor = ring.get().newestKey(siteId).map(EncryptionKey::id).orElse(0);
    // The cursor is not advanced here: the next catch-up delivers this key again, harmlessly.
    KeyStore.Inserted inserted = store.insert(siteId, predecessor, now, activates, expires, secret);
    ring.set(ring.get().with(List.of(inserted.key().value())));
    return inserted;
  }
}
