package dev.veil.sdk.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * Checks of the durations the builders take, so that a setting the client cannot honour (a timeout
 * under the sockets' millisecond, one longer than they can count, a period the scheduler would
 * refuse) is refused when it is set, with its name and range, and not later by a socket or
 * scheduler with an exception of its own.
 */
public final class Durations {
  /** The longest socket timeout: {@code setSoTimeout} counts in {@code int} milliseconds. */
  public static final Duration MAX_TIMEOUT = Duration.ofDays(24);

  /** The longest period or wait the client accepts: a year. */
  public static final Duration MAX_PERIOD = Duration.ofDays(365);

  private Durations() {}

  /** A timeout: 1 ms to {@link #MAX_TIMEOUT}. */
  public static Duration timeout(Duration d, String name) {
    return within(d, name, Duration.ofMillis(1), MAX_TIMEOUT);
  }

  /** A period of a background task: 1 ms to {@link #MAX_PERIOD}. */
  public static Duration period(Duration d, String name) {
    return within(d, name, Duration.ofMillis(1), MAX_PERIOD);
  }

  /** A wait that may be none: 0 to {@link #MAX_PERIOD}. */
  public static Duration waitTime(Duration d, String name) {
    return within(d, name, Duration.ZERO, MAX_PERIOD);
  }

  /**
   * {@code d} if it lies in [{@code min}, {@code max}].
   *
   * @throws NullPointerException naming {@code name} if {@code d} is null
   * @throws IllegalArgumentException naming {@code name} and the range otherwise
   */
  public static Duration within(Duration d, String name, Duration min, Duration max) {
    Objects.requireNonNull(d, name);
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          name + " must be " + text(min) + " to " + text(max) + ", not " + text(d));
    }
    return d;
  }

  /**
   * {@code d} in the largest whole unit that states it exactly: "24 days", "1 ms", else ISO-8601.
   */
  static String text(Duration d) {
    if (d.isZero()) {
      return "0";
    }
    if (d.isNegative() || d.getNano() % 1_000_000 != 0) {
      return d.toString();
    }
    long seconds = d.getSeconds();
    if (d.getNano() != 0) {
      return seconds > Long.MAX_VALUE / 1000
          ? d.toString()
          : (seconds * 1000 + d.toMillisPart()) + " ms";
    }
    if (seconds % 86_400 == 0) {
      return plural(seconds / 86_400, "day");
    }
    if (seconds % 3600 == 0) {
      return plural(seconds / 3600, "hour");
    }
    if (seconds % 60 == 0) {
      return seconds / 60 + " min";
    }
    return seconds + " s";
  }

  private static String plural(long n, String unit) {
    return n + " " + unit + (n == 1 ? "" : "s");
  }
}
