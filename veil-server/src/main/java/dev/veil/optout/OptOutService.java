package dev.veil.optout;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import dev.veil.core.crypto.Sha256;
import dev.veil.salt.SaltSnapshot;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Opt-outs (docs/spec.md section 4): records them durably, answers "has this identity opted out?"
 * from memory, and catches up with opt-outs other nodes took.
 *
 * <p>{@link #isOptedOut} is lock-free and allocation-free. {@link #record} blocks on the store:
 * call it off the event loop. It returns only after the record is durable, then adds it to memory.
 */
public final class OptOutService {
  private final OptOutStore store;
  private final Clock clock;
  private final OptOutIndex index = new OptOutIndex();
  private final LongAdder recorded = new LongAdder();
  private ChangeCursor cursor = ChangeCursor.START;

  /** Guards {@link #byAdvertisingId} and {@link #addedDuringBuild}; held only briefly. */
  private final Object statusLock = new Object();

  /** Held while the advertising-id index is built: one build at a time. */
  private final ReentrantLock buildLock = new ReentrantLock();

  /** Built by the first {@link #statusOf}, so a node that never answers it spends nothing. */
  private AdvertisingIdIndex byAdvertisingId;

  /** Opt-outs recorded while an index is built, added to it before it is published. */
  private List<byte[]> addedDuringBuild;

  public OptOutService(OptOutStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  public boolean isOptedOut(byte[] firstLevelHash) {
    return index.contains(firstLevelHash);
  }

  /** Records an opt-out (idempotent) and returns the time of the stored record. */
  public Instant record(byte[] firstLevelHash) {
    Versioned<OptOut> stored = store.record(firstLevelHash, clock.instant());
    index.add(firstLevelHash);
    addByAdvertisingId(firstLevelHash);
    recorded.increment();
    return stored.value().optedOutAt();
  }

  /**
   * Opt-outs {@link #record}ed through this service since it was created, a repeat of an earlier
   * opt-out included (what {@code veil_optouts_recorded_total} reports); not those caught up from
   * other nodes.
   */
  public long recordedCount() {
    return recorded.sum();
  }

  /** The stored opt-out time of an identity, if it opted out (reads the store). */
  public Optional<Instant> lookup(byte[] firstLevelHash) {
    return store.find(firstLevelHash).map(OptOut::optedOutAt);
  }

  /**
   * Loads opt-outs written since the last call; streams, so millions of records are fine. Adding a
   * record the index holds already changes nothing.
   */
  public synchronized void catchUp() {
    cursor =
        store.forEachChange(
            cursor,
            v -> {
              index.add(v.value().firstLevelHash());
              addByAdvertisingId(v.value().firstLevelHash());
            });
  }

  /** An opted-out advertising id of a {@link #statusOf} question: its position and since when. */
  public record OptedOut(int position, Instant since) {}

  /**
   * Which of these 32-byte advertising ids, under {@code salts}, belong to an identity that opted
   * out, in the order asked; ids of other identities and unknown ids are left out.
   *
   * <p>Answered from an in-memory index ({@link AdvertisingIdIndex}) that names candidates; each
   * candidate is confirmed by reading the records with its first-level hash prefix from the store
   * and comparing the whole advertising id, so nothing is reported that is not an opted-out
   * identity's current id, and the store is read only for ids that are (or, rarely, look like)
   * opted-out ones. Builds the index first if it is missing or for other salts ({@link
   * #prepareStatus}). Blocks: call it off the event loop.
   */
  public List<OptedOut> statusOf(List<byte[]> advertisingIds, SaltSnapshot salts) {
    AdvertisingIdIndex byId = indexFor(salts);
    List<int[]> candidates = new ArrayList<>();
    synchronized (statusLock) {
      for (int i = 0; i < advertisingIds.size(); i++) {
        int position = i;
        byId.candidates(
            advertisingIds.get(i), prefix -> candidates.add(new int[] {position, prefix}));
      }
    }
    Map<Integer, List<OptOut>> byPrefix = new HashMap<>();
    byte[] computed = new byte[Sha256.BYTES];
    List<OptedOut> found = new ArrayList<>();
    for (int[] candidate : candidates) {
      List<OptOut> records =
          byPrefix.computeIfAbsent(candidate[1], p -> store.findByPrefix(prefixBytes(p)));
      byte[] asked = advertisingIds.get(candidate[0]);
      for (OptOut record : records) {
        byte[] hash = record.firstLevelHash();
        salts.hashWithSaltInto(hash, salts.bucketOf(hash), computed, 0);
        if (MessageDigest.isEqual(computed, asked)) {
          found.add(new OptedOut(candidate[0], record.optedOutAt()));
          break;
        }
      }
    }
    found.sort(Comparator.comparingInt(OptedOut::position));
    return found;
  }

  /**
   * Makes sure there is an advertising-id index for {@code salts}: builds it from the store (every
   * record once) if there is none yet or it is for other salts. The build holds no lock that {@link
   * #record}, {@link #catchUp} or a lookup waits for: opt-outs recorded meanwhile are kept aside
   * and added before the new index replaces the old. While another build runs, returns at once if
   * there is an index (lookups use it meanwhile: an id whose bucket just rotated is missed until
   * the build ends, never reported wrongly). Call it without a request's deadline, as catch-up
   * runs: a build cut short is lost work that the next call starts again.
   */
  public void prepareStatus(SaltSnapshot salts) {
    indexFor(salts);
  }

  private AdvertisingIdIndex indexFor(SaltSnapshot salts) {
    if (!buildLock.tryLock()) {
      synchronized (statusLock) {
        if (byAdvertisingId != null) {
          return byAdvertisingId;
        }
      }
      buildLock.lock();
    }
    try {
      synchronized (statusLock) {
        if (byAdvertisingId != null && byAdvertisingId.salts() == salts) {
          return byAdvertisingId;
        }
        addedDuringBuild = new ArrayList<>();
      }
      AdvertisingIdIndex built = new AdvertisingIdIndex(salts, index.size());
      boolean complete = false;
      try {
        store.forEachChange(ChangeCursor.START, v -> built.add(v.value().firstLevelHash()));
        complete = true;
      } finally {
        synchronized (statusLock) {
          if (complete) {
            addedDuringBuild.forEach(built::add);
            byAdvertisingId = built;
          }
          addedDuringBuild = null;
        }
      }
      return built;
    } finally {
      buildLock.unlock();
    }
  }

  /**
   * After a salt rotation, rebuilds the advertising-id index if there is one (the node's catch-up
   * calls this, so requests seldom wait for a build); nothing if none was asked for yet.
   */
  public void refreshStatus(SaltSnapshot salts) {
    synchronized (statusLock) {
      if (byAdvertisingId == null || byAdvertisingId.salts() == salts) {
        return;
      }
    }
    prepareStatus(salts);
  }

  /** Bytes held by the advertising-id index, 0 before the first {@link #statusOf}. */
  public long statusIndexBytes() {
    synchronized (statusLock) {
      return byAdvertisingId == null ? 0 : byAdvertisingId.tableBytes();
    }
  }

  private void addByAdvertisingId(byte[] firstLevelHash) {
    synchronized (statusLock) {
      if (byAdvertisingId != null) {
        byAdvertisingId.add(firstLevelHash);
      }
      if (addedDuringBuild != null) {
        addedDuringBuild.add(firstLevelHash.clone());
      }
    }
  }

  private static byte[] prefixBytes(int prefix) {
    byte[] b = new byte[AdvertisingIdIndex.HASH_PREFIX_BYTES];
    for (int i = b.length - 1, v = prefix; i >= 0; i--, v >>>= 8) {
      b[i] = (byte) v;
    }
    return b;
  }

  public int size() {
    return index.size();
  }

  public OptOutIndex index() {
    return index;
  }
}
