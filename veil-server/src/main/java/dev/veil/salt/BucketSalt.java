package dev.veil.salt;

import java.time.Duration;
import java.time.Instant;

/**
 * The salt state of one bucket: its current generation (0 for the initial salt, +1 per rotation),
 * when that salt took effect, and from when collectors should map its identities again
 * (docs/spec.md 5). The salt value itself is derived from the secret salt seed, the bucket index
 * and the generation, so it is never stored; the previous salt is the one of generation - 1.
 */
public record BucketSalt(
    int bucketIndex, int generation, Instant effectiveAt, Instant refreshFrom) {
  /**
   * How long after a rotation a bucket's identities should be mapped again, and how often after
   * that: short enough that a collector learns of opt-outs within a month, long enough that a
   * collector re-maps only a thirtieth of its identifiers a day.
   */
  public static final Duration REFRESH_PERIOD = Duration.ofDays(30);

  /** A rotation effective at {@code effectiveAt}, to be refreshed one period later. */
  public BucketSalt(int bucketIndex, int generation, Instant effectiveAt) {
    this(bucketIndex, generation, effectiveAt, effectiveAt.plus(REFRESH_PERIOD));
  }
}
