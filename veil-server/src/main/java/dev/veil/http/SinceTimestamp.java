package dev.veil.http;

import dev.veil.common.VeilException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * The {@code since_timestamp} parameter of the buckets answer (docs/spec.md 1.8; in the query of
 * {@code GET /v1/identity/buckets}, in the JSON of {@code POST /v2/identity/buckets}): an ISO 8601
 * local date-time in UTC ({@code YYYY-MM-DDThh:mm}, optional {@code :ss}, optional fraction; a
 * trailing {@code Z} is tolerated) or an integer of Unix epoch seconds (1 to 12 digits, so a value
 * in milliseconds, 13 digits today, is refused instead of silently meaning the far future).
 */
final class SinceTimestamp {
  static final String NAME = "since_timestamp";
  static final String MISSING = "Required Parameter Missing: since_timestamp";
  static final String INVALID =
      "Invalid since_timestamp: must be ISO 8601 date-time or epoch seconds";
  private static final int MAX_EPOCH_DIGITS = 12;
  private static final int MAX_YEAR = 9999;

  private SinceTimestamp() {}

  static Instant parse(String value) {
    if (value == null) {
      throw VeilException.clientError(MISSING);
    }
    if (isEpochSeconds(value)) {
      return Instant.ofEpochSecond(Long.parseLong(value));
    }
    String local = value.endsWith("Z") ? value.substring(0, value.length() - 1) : value;
    LocalDateTime parsed;
    try {
      parsed = LocalDateTime.parse(local, DateTimeFormatter.ISO_LOCAL_DATE_TIME);
    } catch (DateTimeParseException e) {
      throw VeilException.clientError(INVALID);
    }
    if (parsed.getYear() < 0 || parsed.getYear() > MAX_YEAR) {
      throw VeilException.clientError(
          INVALID); // YYYY is four digits; also keeps epoch millis in range
    }
    return parsed.toInstant(ZoneOffset.UTC);
  }

  private static boolean isEpochSeconds(String value) {
    if (value.isEmpty() || value.length() > MAX_EPOCH_DIGITS) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) < '0' || value.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }
}
