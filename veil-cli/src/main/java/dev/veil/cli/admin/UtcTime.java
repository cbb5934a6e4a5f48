package dev.veil.cli.admin;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A time option ({@code --since}, {@code --created-from}, {@code --valid-until}...) as epoch
 * milliseconds: a UTC date ({@code 2026-11-28}, its midnight) or an ISO-8601 instant ({@code
 * 2026-11-28T09:30:00Z}, or with an offset: {@code 2026-11-28T10:30:00+01:00}). Only times after
 * the Unix epoch are times: the API reads 0 as "none".
 */
final class UtcTime implements ITypeConverter<Long> {
  /** What the forms look like, for help texts and errors. */
  static final String FORMS = "a UTC date (2026-11-28) or time (2026-11-28T09:30:00Z) after 1970";

  @Override
  public Long convert(String value) {
    try {
      return millis(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }

  /**
   * {@code value} in milliseconds since the epoch.
   *
   * @throws IllegalArgumentException if it is neither form, or not after the epoch, or beyond what
   *     a {@code long} of milliseconds holds
   */
  static long millis(String value) {
    String v = value.strip();
    long millis;
    try {
      Instant instant =
          v.length() == 10
              ? LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant()
              : Instant.parse(v);
      millis = instant.toEpochMilli();
    } catch (DateTimeException | ArithmeticException e) {
      millis = 0;
    }
    if (millis <= 0) {
      throw new IllegalArgumentException("'" + value + "' is not " + FORMS);
    }
    return millis;
  }
}
