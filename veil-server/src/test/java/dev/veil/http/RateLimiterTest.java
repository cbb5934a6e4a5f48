package dev.veil.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RateLimiterTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00.900Z"));

  @Test
  void allowsPerSecondThenRefusesUntilTheNextSecond() {
    RateLimiter limiter = new RateLimiter(3, clock);

    assertThat(limiter.tryAcquire(1)).isTrue();
    assertThat(limiter.tryAcquire(1)).isTrue();
    assertThat(limiter.tryAcquire(1)).isTrue();
    assertThat(limiter.tryAcquire(1)).isFalse();
    assertThat(limiter.tryAcquire(2)).isTrue();

    clock.advance(Duration.ofMillis(100));
    assertThat(limiter.tryAcquire(1)).isTrue();
  }

  @Test
  void zero_meansOff() {
    RateLimiter limiter = new RateLimiter(0, clock);

    assertThat(limiter.enabled()).isFalse();
    for (int i = 0; i < 1000; i++) {
      assertThat(limiter.tryAcquire(1)).isTrue();
    }
  }
}
