package dev.veil.salt;

import dev.veil.common.ChangeFeed;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable storage of bucket salt states; its {@link ChangeFeed} delivers the latest state of every
 * bucket rotated by any node. Only buckets rotated at least once have a row; every other bucket is
 * at generation 0 since the store's creation. Thread-safe; writes are durable on return.
 *
 * <p>Writes are compare-and-set on the generation: a rotation to generation {@code g} applies only
 * to a bucket still at {@code g - 1}, so a rotation computed twice from the same state (two nodes,
 * or one node resuming after a pause) can never rotate a bucket twice.
 */
public interface SaltStore extends ChangeFeed<BucketSalt> {
  /**
   * Writes all rotations in one transaction if each moves its bucket from generation {@code g - 1}
   * (no row: 0) to {@code g}; otherwise writes nothing and returns false. A bucket listed twice
   * must list consecutive generations. An empty list writes nothing and returns true.
   */
  boolean saveRotations(List<BucketSalt> rotations);

  /**
   * The scheduled rotation of the period starting at {@code periodStart}: records that period's run
   * and writes the rotations as {@link #saveRotations} does, in one transaction. Writes nothing and
   * returns false when a run of that period is already recorded or a bucket is not at the expected
   * generation.
   */
  boolean saveScheduledRotation(Instant periodStart, List<BucketSalt> rotations);

  /** The start of the latest period whose scheduled run is recorded; empty if none is. */
  Optional<Instant> lastScheduledRun();
}
