package dev.veil.sdk;

import java.time.Duration;

/**
 * What one {@link MappingCache} run did.
 *
 * @param rotatedBuckets buckets the poll reported (0 when the run did not poll)
 * @param markedStale entries found mapped before their bucket's rotation by this run's poll, or
 *     over v3 whose refresh time had passed
 * @param mapped entries mapped for the first time
 * @param remapped entries mapped again because their bucket rotated (over v3: their refresh time
 *     passed)
 * @param optedOut entries removed because the person opted out (over v3, also those the opt-out
 *     check found; {@link #sent()} counts them, though their identifiers were not sent)
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
