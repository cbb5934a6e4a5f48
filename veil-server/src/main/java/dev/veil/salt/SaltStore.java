package dev.veil.salt;

import dev.veil.common.Versioned;
import java.util.List;
import java.util.function.Consumer;

/**
 * Durable storage of bucket salt states. Only buckets rotated at least once have a row; every other
 * bucket is at generation 0 since the store's creation. Thread-safe; writes are durable on return.
 */
public interface SaltStore {
  /**
   * Streams the rows written after {@code afterSeq} in ascending sequence order (one row per bucket,
   * its latest state) and returns the highest sequence number passed to {@code sink}, or {@code
   * afterSeq} when there was none.
   */
  long forEachAfter(long afterSeq, Consumer<Versioned<BucketSalt>> sink);

  /** Writes all rotations in one transaction (insert or replace per bucket index). */
  void saveRotations(List<BucketSalt> rotations);
}
