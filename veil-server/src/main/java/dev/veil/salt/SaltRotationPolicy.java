package dev.veil.salt;

import java.time.Duration;
import java.time.Instant;

/**
 * How the scheduled salt rotation runs: once per {@code period} (periods are aligned to the epoch,
 * so a one-day period is a UTC day), rotating {@code fraction} of the buckets, oldest salts first.
 * The default (a day, 1/365) changes every advertising id about once a year.
 *
 * @param fraction share of the buckets each run rotates, in (0, 1]
 * @param period how often the run happens, at least one second
 */
public record SaltRotationPolicy(double fraction, Duration period) {
  public SaltRotationPolicy {
    if (!(fraction > 0 && fraction <= 1)) {
      throw new IllegalArgumentException("rotation fraction must be in (0, 1], got " + fraction);
    }
    if (period.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("rotation period must be at least 1s, got " + period);
    }
  }

  /** The daily rotation of 1/365 of the buckets. */
  public static SaltRotationPolicy daily() {
    return new SaltRotationPolicy(1.0 / 365, Duration.ofDays(1));
  }

  /** The start of the period that contains {@code t}. */
  public Instant periodStart(Instant t) {
    long p = period.toMillis();
    return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), p) * p);
  }

  /** Whether periods are whole days (then a period is named by its UTC date). */
  boolean isWholeDays() {
    return period.toMillis() % Duration.ofDays(1).toMillis() == 0;
  }
}
