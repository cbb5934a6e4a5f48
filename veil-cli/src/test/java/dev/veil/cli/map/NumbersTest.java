package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class NumbersTest {
  @Property
  void grouped_isWhatFormatWithGroupingGives(@ForAll long n) {
    assertThat(Numbers.grouped(n)).isEqualTo(String.format(Locale.ROOT, "%,d", n));
  }

  @Test
  void grouped_atTheEdges() {
    assertThat(Numbers.grouped(0)).isEqualTo("0");
    assertThat(Numbers.grouped(999)).isEqualTo("999");
    assertThat(Numbers.grouped(1000)).isEqualTo("1,000");
    assertThat(Numbers.grouped(-1000)).isEqualTo("-1,000");
    assertThat(Numbers.grouped(Long.MIN_VALUE)).isEqualTo("-9,223,372,036,854,775,808");
  }

  @Property
  void clock_isMinutesAndSeconds_thenHours(@ForAll @LongRange(min = 0, max = 10_000_000) long s) {
    String expected =
        s >= 3600
            ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    assertThat(Numbers.clock(s)).isEqualTo(expected);
  }

  @Property
  void tenths_ofWholeTenths_areExact(@ForAll @LongRange(min = 0, max = 100_000_000) long tenths) {
    assertThat(Numbers.tenths(tenths / 10.0))
        .isEqualTo(String.format(Locale.ROOT, "%.1f", tenths / 10.0));
  }

  @Test
  void isDigits_acceptsOnlyOneToMaxAsciiDigits() {
    assertThat(Numbers.isDigits("5000", 9)).isTrue();
    assertThat(Numbers.isDigits("123456789", 9)).isTrue();
    assertThat(Numbers.isDigits("1234567890", 9)).isFalse();
    assertThat(Numbers.isDigits("", 9)).isFalse();
    assertThat(Numbers.isDigits("-1", 9)).isFalse();
    assertThat(Numbers.isDigits("1e3", 9)).isFalse();
    assertThat(Numbers.isDigits("\u0663", 9)).isFalse(); // an Arabic-Indic three: not ASCII
  }

  @Test
  void tenths_roundHalfUp() {
    assertThat(Numbers.tenths(0.04)).isEqualTo("0.0");
    assertThat(Numbers.tenths(0.05)).isEqualTo("0.1");
    assertThat(Numbers.tenths(12.349)).isEqualTo("12.3");
    assertThat(Numbers.tenths(9.96)).isEqualTo("10.0");
  }
}
