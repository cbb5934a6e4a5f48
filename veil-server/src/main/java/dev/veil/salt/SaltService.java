package dev.veil.salt;

import dev.veil.common.MetaStore;
import dev.veil.common.VeilException;
import dev.veil.common.Versioned;
import java.nio.charset.StandardCharsets;
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

/**
 * Owns bucket salts: publishes the current {@link SaltSnapshot}, rotates salts (the daily job and
 * admin requests) and catches up with rotations written by other nodes.
 *
 * <p>Reads ({@link #current()}) are lock-free. Writes are serialized by this object's monitor and
 * reach the store (durable) before the new snapshot is published. A rotation gives each chosen
 * bucket generation + 1, effective at the next whole second (rounding up, so a client that polls
 * with the time of its last poll, truncated to seconds, never misses it).
 */
public final class SaltService {
  static final String LAST_DAILY_ROTATION = "salt.rotation.last_day";

  private final SaltStore store;
  private final MetaStore meta;
  private final Clock clock;
  private final AtomicReference<SaltSnapshot> snapshot;
  private volatile Map<String, Integer> indexById;
  private long lastSeq;

  public SaltService(SaltSystem system, SaltStore store, MetaStore meta, Clock clock) {
    this.store = store;
    this.meta = meta;
    this.clock = clock;
    this.snapshot = new AtomicReference<>(SaltSnapshot.initial(system));
    // The initial salts count as the creation day's rotation: the first daily run is the next day.
    meta.putIfAbsent(LAST_DAILY_ROTATION,
        LocalDate.ofInstant(system.created(), ZoneOffset.UTC).toString().getBytes(StandardCharsets.UTF_8));
  }

  public SaltSnapshot current() {
    return snapshot.get();
  }

  /** Applies rotations written since the last call (by this or another node). */
  public synchronized void catchUp() {
    List<BucketSalt> changes = new ArrayList<>();
    long seq = store.forEachAfter(lastSeq, (Versioned<BucketSalt> v) -> changes.add(v.value()));
    lastSeq = Math.max(lastSeq, seq);
    if (!changes.isEmpty()) {
      snapshot.set(snapshot.get().with(changes));
    }
  }

  /**
   * The daily job: rotates {@code fraction} of the buckets, oldest salts first, at most once per UTC
   * day across all nodes. Returns the number of buckets rotated (0 when today's run already happened).
   */
  public synchronized int rotateDaily(double fraction) {
    catchUp();
    String today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).toString();
    byte[] previous = meta.get(LAST_DAILY_ROTATION).orElse(null);
    if (previous != null && new String(previous, StandardCharsets.UTF_8).equals(today)) {
      return 0;
    }
    if (!meta.compareAndSet(LAST_DAILY_ROTATION, previous, today.getBytes(StandardCharsets.UTF_8))) {
      return 0; // another node claimed today's run
    }
    return rotateFraction(fraction);
  }

  /** Rotates {@code fraction} (0 < f <= 1) of the buckets now, oldest salts first; at least one bucket. */
  public synchronized int rotateFraction(double fraction) {
    if (!(fraction > 0 && fraction <= 1)) {
      throw VeilException.clientError("fraction must be greater than 0 and at most 1");
    }
    catchUp();
    SaltSnapshot current = snapshot.get();
    int count = (int) Math.max(1, Math.ceil(fraction * current.bucketCount()));
    List<Integer> chosen = new ArrayList<>(count);
    PrimitiveIterator.OfInt oldest = current.oldestFirst();
    while (chosen.size() < count && oldest.hasNext()) {
      chosen.add(oldest.nextInt());
    }
    return rotate(chosen);
  }

  /**
   * Rotates the buckets with the given ids now.
   *
   * @throws VeilException CLIENT_ERROR naming the first unknown id
   */
  public synchronized int rotateBuckets(Collection<String> bucketIds) {
    Map<String, Integer> index = bucketIndexById();
    Set<Integer> chosen = new LinkedHashSet<>();
    for (String id : bucketIds) {
      Integer i = index.get(id);
      if (i == null) {
        throw VeilException.clientError("unknown bucket id: " + id);
      }
      chosen.add(i);
    }
    catchUp();
    return rotate(new ArrayList<>(chosen));
  }

  private int rotate(List<Integer> buckets) {
    if (buckets.isEmpty()) {
      return 0;
    }
    SaltSnapshot current = snapshot.get();
    Instant effective = ceilToSecond(clock.instant());
    List<BucketSalt> rotations = new ArrayList<>(buckets.size());
    for (int i : buckets) {
      rotations.add(new BucketSalt(i, current.generation(i) + 1, effective));
    }
    store.saveRotations(rotations);
    snapshot.set(current.with(rotations));
    return rotations.size();
  }

  /** Summary for operators. */
  public RotationStatus status() {
    SaltSnapshot s = snapshot.get();
    String lastDay = meta.get(LAST_DAILY_ROTATION).map(b -> new String(b, StandardCharsets.UTF_8)).orElse("");
    PrimitiveIterator.OfInt oldest = s.oldestFirst();
    Instant oldestAt = oldest.hasNext() ? s.effectiveAt(oldest.nextInt()) : s.system().created();
    return new RotationStatus(s.bucketCount(), s.rotatedCount(), oldestAt, lastDay);
  }

  /** Rotation summary: bucket count, buckets rotated at least once, oldest salt time, last daily run day. */
  public record RotationStatus(int bucketCount, int rotatedBuckets, Instant oldestSaltAt, String lastDailyRotationDay) {}

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
