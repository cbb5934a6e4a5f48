package dev.veil.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The ranges of the builders' durations, and how they are said. */
class DurationsTest {
  @Test
  void aTimeout_isOneMillisecondTo24Days() {
    assertThat(Durations.timeout(Duration.ofMillis(1), "requestTimeout"))
        .isEqualTo(Duration.ofMillis(1));
    assertThat(Durations.timeout(Duration.ofDays(24), "requestTimeout"))
        .isEqualTo(Duration.ofDays(24));
    assertThatThrownBy(() -> Durations.timeout(Duration.ofNanos(500_000), "requestTimeout"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("requestTimeout must be 1 ms to 24 days, not PT0.0005S");
    assertThatThrownBy(
            () -> Durations.timeout(Duration.ofSeconds(Long.MAX_VALUE), "connectTimeout"))
        .hasMessage("connectTimeout must be 1 ms to 24 days, not 9223372036854775807 s");
    assertThatThrownBy(() -> Durations.timeout(Duration.ZERO, "connectTimeout"))
        .hasMessage("connectTimeout must be 1 ms to 24 days, not 0");
    assertThatThrownBy(() -> Durations.timeout(null, "connectTimeout"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("connectTimeout");
  }

  @Test
  void periodsAndWaits_areBoundedByAYear() {
    assertThatThrownBy(() -> Durations.period(Duration.ofDays(366), "pollInterval"))
        .hasMessage("pollInterval must be 1 ms to 365 days, not 366 days");
    assertThatThrownBy(() -> Durations.waitTime(Duration.ofMillis(-1), "initialBackoff"))
        .hasMessage("initialBackoff must be 0 to 365 days, not PT-0.001S");
    assertThat(Durations.waitTime(Duration.ZERO, "initialBackoff")).isZero();
  }

  @Test
  void durations_areSaidInTheLargestWholeUnit() {
    assertThat(Durations.text(Duration.ofHours(3))).isEqualTo("3 hours");
    assertThat(Durations.text(Duration.ofHours(1))).isEqualTo("1 hour");
    assertThat(Durations.text(Duration.ofMinutes(90))).isEqualTo("90 min");
    assertThat(Durations.text(Duration.ofSeconds(61))).isEqualTo("61 s");
    assertThat(Durations.text(Duration.ofMillis(1500))).isEqualTo("1500 ms");
  }
}
