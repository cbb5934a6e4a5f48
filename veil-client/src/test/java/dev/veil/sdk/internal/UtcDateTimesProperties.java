package dev.veil.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The hand-written reading of the bucket endpoint's times agrees with {@link LocalDateTime#parse},
 * text by text.
 */
class UtcDateTimesProperties {
  private static Object jdk(String text) {
    try {
      return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return DateTimeParseException.class;
    }
  }

  private static Object ours(String text) {
    try {
      return UtcDateTimes.parse(text);
    } catch (DateTimeParseException e) {
      return DateTimeParseException.class;
    }
  }

  @Property(tries = 3000)
  void anyDateTime_withAnyFraction_readsAsTheJdkReadsIt(
      @ForAll("instants") long epochSecond,
      @ForAll @IntRange(max = 999_999_999) int nanos,
      @ForAll @IntRange(max = 9) int fractionDigits) {
    LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
    String fraction =
        fractionDigits == 0 ? "" : "." + String.format("%09d", nanos).substring(0, fractionDigits);
    String text =
        String.format(
                "%04d-%02d-%02dT%02d:%02d:%02d",
                t.getYear(),
                t.getMonthValue(),
                t.getDayOfMonth(),
                t.getHour(),
                t.getMinute(),
                t.getSecond())
            + fraction;

    assertThat(ours(text)).isEqualTo(jdk(text)).isInstanceOf(Instant.class);
  }

  @Property(tries = 3000)
  void anyTextOfTheShape_isAcceptedOrRefusedAsTheJdkDoes(@ForAll("shaped") String text) {
    assertThat(ours(text)).isEqualTo(jdk(text));
  }

  @Provide
  Arbitrary<Long> instants() {
    return Arbitraries.longs()
        .between(
            LocalDateTime.of(1000, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC),
            LocalDateTime.of(9999, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC));
  }

  /**
   * Texts near the shape: digits and separators in its places, a few characters off, some lengths
   * off.
   */
  @Provide
  Arbitrary<String> shaped() {
    Arbitrary<Character> c =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(20, Arbitraries.chars().range('0', '9')),
            net.jqwik.api.Tuple.of(1, Arbitraries.of('-', ':', 'T', '.', ' ', 'x', '+', '/')));
    return c.list()
        .ofMinSize(16)
        .ofMaxSize(31)
        .map(
            chars -> {
              StringBuilder b = new StringBuilder();
              chars.forEach(b::append);
              String pattern = "0000-00-00T00:00:00.000000000000";
              for (int i = 0; i < b.length() && i < pattern.length(); i++) {
                char p = pattern.charAt(i);
                if (p != '0'
                    && b.charAt(i) >= '0'
                    && b.charAt(i) <= '9'
                    && (b.charAt(i) & 3) != 0) {
                  b.setCharAt(i, p); // usually the separator, sometimes a digit where it belongs
                }
              }
              return b.toString();
            });
  }

  @Example
  void theServersShape_andItsEdges() {
    assertThat(UtcDateTimes.parse("2026-11-27T04:05:00.123"))
        .isEqualTo(Instant.parse("2026-11-27T04:05:00.123Z"));
    assertThat(UtcDateTimes.parse("2024-02-29T23:59:59"))
        .isEqualTo(Instant.parse("2024-02-29T23:59:59Z"));
    assertThat(UtcDateTimes.parse("2026-11-27T04:05"))
        .isEqualTo(Instant.parse("2026-11-27T04:05:00Z"));
    assertThatThrownBy(() -> UtcDateTimes.parse("2023-02-29T00:00:00"))
        .isInstanceOf(DateTimeParseException.class);
    assertThatThrownBy(() -> UtcDateTimes.parse("2026-11-27T24:00:00"))
        .isInstanceOf(DateTimeParseException.class);
    // The JDK takes a decimal point without digits; so does this, through it.
    assertThat(UtcDateTimes.parse("2026-11-27T04:05:00."))
        .isEqualTo(Instant.parse("2026-11-27T04:05:00Z"));
    assertThatThrownBy(() -> UtcDateTimes.parse("2026-11-27 04:05:00"))
        .isInstanceOf(DateTimeParseException.class);
  }
}
