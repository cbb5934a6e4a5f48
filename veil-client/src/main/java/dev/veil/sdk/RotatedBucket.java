package dev.veil.sdk;

import java.time.Instant;
import java.util.Objects;

/**
 * A salt bucket whose salt changed: every identifier in it got a new advertising id at {@code
 * lastUpdated}. Identifiers mapped before that time must be mapped again.
 *
 * @param bucketId as in mapping answers
 * @param lastUpdated when the bucket's current salt took effect (whole seconds, UTC)
 */
public record RotatedBucket(String bucketId, Instant lastUpdated) {
  public RotatedBucket {
    Objects.requireNonNull(bucketId, "bucketId");
    Objects.requireNonNull(lastUpdated, "lastUpdated");
  }
}
