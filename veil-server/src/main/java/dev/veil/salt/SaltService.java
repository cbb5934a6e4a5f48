package dev.veil.salt;

import dev.veil.common.ChangeCursor;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PrimitiveIterator;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Owns bucket salts: publishes the current {@link SaltSnapshot}, rotates salts (the scheduled job
 * and admin requests) and catches up with rotations written by other nodes.
 *
 * <p>Reads ({@link #current()}) are lock-free. Writes are serialized by this object's monitor and
 * reach the store (durable) before the new snapshot is published. A rotation gives each chosen
 * bucket generation + 1, effective at the next whole second (rounding up, so a client that polls
 * with the time of its last poll, truncated to seconds, never misses it).
 *
 * <p>Never twice: the store applies a rotation only to a bucket still at the generation it was
 * computed from, and records each scheduled period's run in the same transaction as its rotations,
 * so neither a second node nor a node resuming with stale memory can rotate a bucket twice or run
 * one period twice (the job lock only keeps nodes from doing the work in vain). Generations only
 * grow, so catching up applies a row only when it is newer than memory: a row delivered again is
 * ignored.
 */
public final class SaltService {
  /** How often an admin rotation recomputes after losing a race with another writer. */
  private static final int ADMIN_ATTEMPTS = 3;

  private final SaltStore store;
  private final SaltRotationPolicy policy;
  private final Clock clock;
  private final AtomicReference<SaltSnapshot> snapshot;
  private volatile Map<String, Integer> indexById;
  private ChangeCursor cursor = ChangeCursor.START;

  public SaltService(SaltSystem system, SaltStore store, SaltRotationPolicy policy, Clock clock) {
    this.store = store;
    this.policy = policy;
    this.clock = clock;
    this.snapshot = new AtomicReference<>(SaltSnapshot.initial(system));
  }

  public SaltSnapshot current() {
    return snapshot.get();
  }

  /** Applies rotations written since the last call (by this or another node). */
  public synchronized void catchUp() {
    List<BucketSalt> changes = new ArrayList<>();
    SaltSnapshot before = snapshot.get();
    cursor =
        store.forEachChange(
            cursor,
            v -> {
              if (isNewer(before, v.value())) {
                changes.add(v.value());
              }
            });
    if (!changes.isEmpty()) {
      snapshot.set(snapshot.get().with(changes));
    }
  }

  private static boolean isNewer(SaltSnapshot s, BucketSalt row) {
    int i = row.bucketIndex();
    return i >= 0 && i < s.bucketCount() && row.generation() > s.generation(i);
  }

  /**
   * The scheduled job: if the current period's run has not happened (on any node), rotates the
   * policy's fraction of the buckets, oldest salts first, and records the run. The store's creation
   * period counts as run (its initial salts). Returns the number of buckets rotated, 0 when there
   * was nothing to do or another node got there first.
   */
  public synchronized int rotateScheduled() {
    catchUp();
    Instant period = policy.periodStart(clock.instant());
    if (!period.isAfter(lastRun())) {
      return 0;
    }
    List<BucketSalt> rotations = next(oldestBuckets(policy.fraction()));
    if (!store.saveScheduledRotation(period, rotations)) {
      catchUp(); // another node ran this period, or rotated one of these buckets meanwhile
      return 0;
    }
    publish(rotations);
    return rotations.size();
  }

  /**
   * Rotates {@code fraction} (0 < f <= 1) of the buckets now, oldest salts first; at least one
   * bucket.
   */
  public synchronized int rotateFraction(double fraction) {
    if (!(fraction > 0 && fraction <= 1)) {
      throw VeilException.clientError("fraction must be greater than 0 and at most 1");
    }
    catchUp();
    return rotate(() -> oldestBuckets(fraction));
  }

  /**
   * Rotates the buckets with the given ids now.
   *
   * @throws VeilException NOT_FOUND naming the first unknown id (as for an unknown client or
   *     keyset: the admin API documents NOT_FOUND for a bucket that does not exist); nothing is
   *     rotated
   */
  public synchronized int rotateBuckets(Collection<String> bucketIds) {
    Map<String, Integer> index = bucketIndexById();
    Set<Integer> chosen = new LinkedHashSet<>();
    for (String id : bucketIds) {
      Integer i = index.get(id);
      if (i == null) {
        throw new VeilException(ErrorCode.NOT_FOUND, "unknown bucket id: " + id);
      }
      chosen.add(i);
    }
    catchUp();
    List<Integer> buckets = List.copyOf(chosen);
    return rotate(() -> buckets);
  }

  /**
   * Saves the next generation of the chosen buckets; on a lost race catches up and chooses again.
   */
  private int rotate(Supplier<List<Integer>> choice) {
    for (int attempt = 1; ; attempt++) {
      List<BucketSalt> rotations = next(choice.get());
      if (rotations.isEmpty()) {
        return 0;
      }
      if (store.saveRotations(rotations)) {
        publish(rotations);
        return rotations.size();
      }
      if (attempt == ADMIN_ATTEMPTS) {
        throw new VeilException(
            ErrorCode.UNAVAILABLE,
            "salt rotation kept conflicting with rotations of other nodes; nothing was changed,"
                + " retry");
      }
      catchUp();
    }
  }

  private List<Integer> oldestBuckets(double fraction) {
    SaltSnapshot current = snapshot.get();
    int count = (int) Math.max(1, Math.ceil(fraction * current.bucketCount()));
    List<Integer> chosen = new ArrayList<>(count);
    PrimitiveIterator.OfInt oldest = current.oldestFirst();
    while (chosen.size() < count && oldest.hasNext()) {
      chosen.add(oldest.nextInt());
    }
    return chosen;
  }

  /** Each bucket's next generation, effective at the next whole second. */
  private List<BucketSalt> next(List<Integer> buckets) {
    SaltSnapshot current = snapshot.get();
    Instant effective = ceilToSecond(clock.instant());
    List<BucketSalt> rotations = new ArrayList<>(buckets.size());
    for (int i : buckets) {
      rotations.add(new BucketSalt(i, current.generation(i) + 1, effective));
    }
    return rotations;
  }

  private void publish(List<BucketSalt> rotations) {
    snapshot.set(snapshot.get().with(rotations));
  }

  /**
   * The start of the period of the last scheduled run; the creation period if none was recorded.
   */
  private Instant lastRun() {
    Instant created = policy.periodStart(snapshot.get().system().created());
    return store.lastScheduledRun().filter(r -> r.isAfter(created)).orElse(created);
  }

  /** Summary for operators (reads the store for the last run). */
  public RotationStatus status() {
    SaltSnapshot s = snapshot.get();
    Instant last = lastRun();
    String lastRun =
        policy.isWholeDays()
            ? LocalDate.ofInstant(last, ZoneOffset.UTC).toString()
            : last.toString();
    PrimitiveIterator.OfInt oldest = s.oldestFirst();
    Instant oldestAt = oldest.hasNext() ? s.effectiveAt(oldest.nextInt()) : s.system().created();
    return new RotationStatus(s.bucketCount(), s.rotatedCount(), oldestAt, lastRun);
  }

  /**
   * Rotation summary: bucket count, buckets rotated at least once, oldest salt time, and the period
   * of the last scheduled run (its UTC date when periods are whole days, else its start instant).
   */
  public record RotationStatus(
      int bucketCount, int rotatedBuckets, Instant oldestSaltAt, String lastDailyRotationDay) {}

  private Map<String, Integer> bucketIndexById() {
    Map<String, Integer> index = indexById;
    if (index == null) {
      SaltSnapshot current = snapshot.get();
      index = new HashMap<>(current.bucketCount() * 2);
      for (int i = 0; i < current.bucketCount(); i++) {
        index.put(current.bucketId(i), i);
      }
      indexById = index;
    }
    return index;
  }

  static Instant ceilToSecond(Instant t) {
    return t.getNano() == 0 ? t : Instant.ofEpochSecond(t.getEpochSecond() + 1);
  }
}
