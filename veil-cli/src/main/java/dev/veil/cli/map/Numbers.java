package dev.veil.cli.map;

/**
 * The few number formats of {@code veil map}'s messages, written by hand: the first {@code
 * String.format} of a JVM loads the formatter and the locale data (30 to 40 ms of CPU on these
 * machines), a noticeable share of mapping a small file. Output matches {@code
 * String.format(Locale.ROOT, …)} with {@code %,d} and {@code %02d}; tenths round half up.
 */
final class Numbers {
  private Numbers() {}

  /** {@code 1234567} as {@code 1,234,567} (like {@code %,d}). */
  static String grouped(long n) {
    String digits = Long.toString(n);
    int sign = n < 0 ? 1 : 0;
    int count = digits.length() - sign;
    StringBuilder b = new StringBuilder(digits.length() + count / 3);
    b.append(digits, 0, sign);
    for (int i = 0; i < count; i++) {
      if (i > 0 && (count - i) % 3 == 0) {
        b.append(',');
      }
      b.append(digits.charAt(sign + i));
    }
    return b.toString();
  }

  /**
   * Whether {@code s} is 1 to {@code maxDigits} ASCII digits: a number {@link Integer#parseInt}
   * takes whole when {@code maxDigits} is at most 9. A loop rather than a regular expression, whose
   * first use in a JVM costs milliseconds before a run's first request.
   */
  static boolean isDigits(String s, int maxDigits) {
    if (s.isEmpty() || s.length() > maxDigits) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * A duration of seconds or more with one decimal, e.g. {@code 12.3}; non-negative values only.
   */
  static String tenths(double value) {
    long t = Math.round(Math.max(0, value) * 10);
    return t / 10 + "." + t % 10;
  }

  /** {@code m:ss}, or {@code h:mm:ss} from an hour on. */
  static String clock(long seconds) {
    long s = Math.max(0, seconds);
    return s >= 3600
        ? s / 3600 + ":" + twoDigits(s / 60 % 60) + ":" + twoDigits(s % 60)
        : s / 60 + ":" + twoDigits(s % 60);
  }

  private static String twoDigits(long n) {
    return n < 10 ? "0" + n : Long.toString(n);
  }
}
