package dev.veil.config;

import java.time.Duration;
import java.util.Locale;

/** Parses durations written as {@code 500ms}, {@code 10s}, {@code 5m}, {@code 72h}, {@code 30d} or ISO-8601. */
public final class DurationFormat {
  private DurationFormat() {}

  public static Duration parse(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    if (t.startsWith("p") || t.startsWith("-p")) {
      return Duration.parse(text.strip());
    }
    int split = 0;
    while (split < t.length() && (Character.isDigit(t.charAt(split)) || t.charAt(split) == '-')) {
      split++;
    }
    if (split == 0 || split == t.length()) {
      throw new IllegalArgumentException("not a duration");
    }
    long n = Long.parseLong(t.substring(0, split));
    return switch (t.substring(split)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      case "d" -> Duration.ofDays(n);
      default -> throw new IllegalArgumentException("unknown unit");
    };
  }

  /** The shortest text {@link #parse} reads back as {@code d}, in the largest whole unit: 7s, 10m, 1500ms. */
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
