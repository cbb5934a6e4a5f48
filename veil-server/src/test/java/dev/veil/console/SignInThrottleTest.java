package dev.veil.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SignInThrottleTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-29T09:00:00Z"));
  private final SignInThrottle throttle = new SignInThrottle(clock);

  private void refuse(String address, int times) {
    for (int i = 0; i < times; i++) {
      throttle.refused(address);
    }
  }

  @Test
  void anAddressWaits_onlyOnceItHasTheMostRefusalsOfAMinute_andOnlyItself() {
    refuse("10.0.0.1", SignInThrottle.MAX_REFUSALS - 1);
    assertThat(throttle.waitFor("10.0.0.1")).isZero();

    refuse("10.0.0.1", 1);

    assertThat(throttle.waitFor("10.0.0.1")).isEqualTo(Duration.ofMinutes(1));
    assertThat(throttle.waitFor("10.0.0.2")).isZero();
    clock.advance(Duration.ofSeconds(59).plusMillis(1));
    assertThat(throttle.waitFor("10.0.0.1")).isEqualTo(Duration.ofSeconds(1));
    clock.advance(Duration.ofMillis(999));
    assertThat(throttle.waitFor("10.0.0.1")).isZero();
  }

  @Test
  void refusalsLeaveTheWindowOneByOne() {
    for (int i = 0; i < SignInThrottle.MAX_REFUSALS; i++) {
      throttle.refused("10.0.0.1");
      clock.advance(Duration.ofSeconds(5));
    }
    // Refused at 0, 5, … 45 s; now 50 s: the first leaves the window at 60 s.
    assertThat(throttle.waitFor("10.0.0.1")).isEqualTo(Duration.ofSeconds(10));
    clock.advance(Duration.ofSeconds(10));
    assertThat(throttle.waitFor("10.0.0.1")).isZero();
    throttle.refused("10.0.0.1"); // the tenth again within the window
    assertThat(throttle.waitFor("10.0.0.1")).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aSuccess_forgetsTheAddressesRefusals() {
    refuse("10.0.0.1", SignInThrottle.MAX_REFUSALS - 1);

    throttle.succeeded("10.0.0.1");
    refuse("10.0.0.1", 1);

    assertThat(throttle.waitFor("10.0.0.1")).isZero();
  }

  @Test
  void theAddressesKept_areBounded_theLeastRecentlyRefusedDroppedFirst() {
    refuse("first", SignInThrottle.MAX_REFUSALS);
    for (int i = 0; i < SignInThrottle.MAX_ADDRESSES; i++) {
      throttle.refused("10.1." + (i >> 8) + "." + (i & 0xff));
    }

    assertThat(throttle.waitFor("first")).isZero();
  }
}
