package dev.veil.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Parses durations written as {@code 500ms}, {@code 10s}, {@code 5m}, {@code 72h}, {@code 30d} or
 * ISO-8601.
 */
public final class DurationFormat {
  private DurationFormat() {}

  /**
   * The longest duration any setting may hold: far beyond any sensible one, and safe to add to an
   * instant or count in nanoseconds.
   */
  public static final Duration MAX = Duration.ofDays(36_500);

  /**
   * Reads {@code text}.
   *
   * @throws IllegalArgumentException if it is not a duration in one of the forms above, or is
   *     longer than {@link #MAX} either way
   */
  public static Duration parse(String text) {
    Duration d;
    try {
      d = parseUnbounded(text);
    } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException(
          "not a duration (e.g. 500ms, 10s, 5m, 72h, 30d or ISO-8601 PT10S)");
    }
    if (d.abs().compareTo(MAX) > 0) {
      throw new IllegalArgumentException("longer than " + MAX.toDays() + "d");
    }
    return d;
  }

  private static Duration parseUnbounded(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    if (t.startsWith("p") || t.startsWith("-p")) {
      return Duration.parse(text.strip());
    }
    int split = 0;
    while (split < t.length() && (Character.isDigit(t.charAt(split)) || t.charAt(split) == '-')) {
      split++;
    }
    if (split == 0 || split == t.length()) {
      throw new IllegalArgumentException(
          "not a duration (e.g. 500ms, 10s, 5m, 72h, 30d or ISO-8601 PT10S)");
    }
    long n = Long.parseLong(t.substring(0, split));
    return switch (t.substring(split)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      case "d" -> Duration.ofDays(n);
      default -> throw new IllegalArgumentException("unknown unit: use ms, s, m, h or d");
    };
  }

  /**
   * The shortest text {@link #parse} reads back as {@code d}, in the largest whole unit: 7s, 10m,
   * 1500ms.
   */
  public static String format(Duration d) {
    long ms = d.toMillis();
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < units.length; i++) {
      if (ms != 0 && ms % units[i] == 0) {
        return (ms / units[i]) + names[i];
      }
    }
    return ms + "ms";
  }
}
