package dev.veil.core.token;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/** Tokens carry times as signed 64-bit epoch milliseconds; payloads hold them as such instants. */
final class EpochMillis {
  private EpochMillis() {}

  /**
   * {@code time} truncated to whole milliseconds (towards the past).
   *
   * @throws IllegalArgumentException if it does not fit in a 64-bit millisecond count
   */
  static Instant truncate(Instant time, String field) {
    Objects.requireNonNull(time, field);
    Instant truncated = time.truncatedTo(ChronoUnit.MILLIS);
    try {
      return Instant.ofEpochMilli(truncated.toEpochMilli()); // the same instant, if it fits
    } catch (ArithmeticException tooFar) {
      throw new IllegalArgumentException(field + " is out of the epoch-millisecond range");
    }
  }
}
