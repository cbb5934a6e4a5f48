package dev.veil.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.key.KeyPolicy;
import dev.veil.key.KeyService;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadinessTest {
  private final MutableClock clock = MutableClock.at("2026-05-01T00:00:00Z");
  private final KeyService keys =
      new KeyService(
          new InMemoryStores().keys(),
          new KeyPolicy(
              Duration.ofDays(1), Duration.ofHours(1), Duration.ofHours(72), Duration.ofDays(30)),
          clock,
          new SecureRandom());
  private final Readiness readiness = new Readiness(keys, clock, Duration.ofMinutes(10));

  @Test
  void notReady_untilLoaded_thenReady_thenDraining() {
    keys.ensureKeysets(List.of());
    assertThat(readiness.notReadyReason()).isEqualTo("loading");
    readiness.markLoaded();
    assertThat(readiness.isReady()).isTrue();
    readiness.markDraining();
    assertThat(readiness.notReadyReason()).isEqualTo("shutting down");
  }

  @Test
  void staysReady_whileTheDataIsYoungerThanTheBound_andSaysWhyAfter() {
    keys.ensureKeysets(List.of());
    readiness.markLoaded();
    Instant synced = clock.instant();
    readiness.recordSync(synced);

    clock.advance(Duration.ofMinutes(10));
    assertThat(readiness.isReady()).as("exactly at the bound").isTrue();
    assertThat(readiness.syncAge()).isEqualTo(Duration.ofMinutes(10));

    clock.advance(Duration.ofSeconds(1));
    assertThat(readiness.notReadyReason())
        .isEqualTo(
            "data not synced with the store for 601s (sync.max-staleness 10m); is the store"
                + " reachable?");

    readiness.recordSync(clock.instant());
    assertThat(readiness.isReady()).as("ready again after the next successful sync").isTrue();
    assertThat(readiness.syncAge()).isZero();
  }

  @Test
  void recordSync_neverGoesBack() {
    Instant now = clock.instant();
    readiness.recordSync(now);
    readiness.recordSync(now.minusSeconds(30));
    assertThat(readiness.lastSync()).isEqualTo(now);
  }

  @Test
  void noActiveKey_isNotReady() {
    readiness.markLoaded();
    assertThat(readiness.notReadyReason()).isEqualTo("no active encryption key");
  }
}
