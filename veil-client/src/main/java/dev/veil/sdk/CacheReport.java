package dev.veil.sdk;

import java.time.Duration;

/**
 * What one {@link MappingCache} run did.
 *
 * @param rotatedBuckets buckets the poll reported (0 when the run did not poll)
 * @param markedStale entries found mapped before their bucket's rotation by this run's poll
 * @param mapped entries mapped for the first time
 * @param remapped entries mapped again because their bucket rotated
 * @param optedOut entries removed because the person opted out
 * @param invalid entries removed because the server found them invalid
 * @param elapsed wall time of the run
 */
public record CacheReport(
    long rotatedBuckets,
    long markedStale,
    long mapped,
    long remapped,
    long optedOut,
    long invalid,
    Duration elapsed) {

  /** Entries the run sent to the server. */
  public long sent() {
    return mapped + remapped + optedOut + invalid;
  }
}
