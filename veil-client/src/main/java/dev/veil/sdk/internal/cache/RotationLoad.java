package dev.veil.sdk.internal.cache;

import dev.veil.sdk.RotatedBucket;
import dev.veil.sdk.internal.RotatedBuckets;

/**
 * One poll's rotated buckets, collected in memory (a bucket id and a time each; a first poll may
 * list every bucket) and then applied at once: every current mapping of a listed bucket made at or
 * before its rotation time becomes stale, and the new poll times are stored after the marks. A poll
 * that breaks off and is retried calls {@link #restart()} and delivers its buckets again. Not
 * thread-safe: one poll's.
 */
public final class RotationLoad {
  private final MappingStore store;
  private final RotatedBuckets rotatedAtMillis = new RotatedBuckets();

  RotationLoad(MappingStore store) {
    this.store = store;
  }

  /** Forgets buckets received so far (a retried poll starts again from its first bucket). */
  public void restart() {
    rotatedAtMillis.clear();
  }

  public void add(RotatedBucket bucket) {
    rotatedAtMillis.merge(bucket.bucketId(), bucket.lastUpdated().toEpochMilli());
  }

  /**
   * Marks stale the mappings made at or before their bucket's rotation and then stores the settings
   * ({@code key, value, key, value...}); returns how many entries were marked.
   */
  public long commit(String... keysAndValues) {
    return store.markStale(new StaleMarking(rotatedAtMillis), keysAndValues);
  }
}
