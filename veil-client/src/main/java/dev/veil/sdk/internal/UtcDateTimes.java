package dev.veil.sdk.internal;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * ISO local date-times in UTC, as the bucket endpoint writes them ({@code
 * 2026-11-27T04:05:00.123}), read as instants. The server's shape (four-digit year, seconds, up to
 * nine digits of fraction) is read by hand: {@link LocalDateTime#parse} took about three
 * microseconds each, most of a first poll that lists a million buckets. Every other text goes to
 * {@link LocalDateTime#parse}, so what is accepted, and the answer, are the same as with it alone.
 */
public final class UtcDateTimes {
  private UtcDateTimes() {}

  /**
   * The instant of {@code text}, an ISO local date-time in UTC.
   *
   * @throws DateTimeParseException if it is not one
   */
  public static Instant parse(String text) {
    int n = text.length();
    if (n < 19
        || n == 20
        || n > 29
        || text.charAt(4) != '-'
        || text.charAt(7) != '-'
        || text.charAt(10) != 'T'
        || text.charAt(13) != ':'
        || text.charAt(16) != ':'
        || (n > 19 && text.charAt(19) != '.')) {
      return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 7);
    int day = digits(text, 8, 10);
    int hour = digits(text, 11, 13);
    int minute = digits(text, 14, 16);
    int second = digits(text, 17, 19);
    int nanos = n > 19 ? digits(text, 20, n) : 0;
    if ((year | month | day | hour | minute | second | nanos) < 0
        || hour > 23
        || minute > 59
        || second > 59) {
      return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC); // throws, with the JDK's message
    }
    for (int i = n; i < 29; i++) {
      nanos *= 10; // ".5" is half a second
    }
    long epochDay;
    try {
      epochDay = LocalDate.of(year, month, day).toEpochDay();
    } catch (DateTimeException e) {
      return LocalDateTime.parse(text)
          .toInstant(ZoneOffset.UTC); // no such day: throws, with the JDK's message
    }
    return Instant.ofEpochSecond(epochDay * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
  }

  /** The decimal number in {@code text[from, to)}, or -1 if a character is not a digit. */
  private static int digits(String text, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      int d = text.charAt(i) - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      value = value * 10 + d;
    }
    return value;
  }
}
