package dev.veil.salt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.VeilException;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.PrimitiveIterator;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SaltServiceTest {
  private final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
  private final InMemoryStores stores = new InMemoryStores();
  private final SaltSystem system = SaltSystem.loadOrCreate(stores.meta(), 100, clock, new SecureRandom());
  private final SaltService salts = new SaltService(system, stores.salts(), stores.meta(), clock);

  private static List<Integer> drain(PrimitiveIterator.OfInt it) {
    List<Integer> out = new ArrayList<>();
    it.forEachRemaining((int i) -> out.add(i));
    return out;
  }

  @Test
  void initially_everyBucketIsUpdatedAfterATimeBeforeCreation_andNoneAfterIt() {
    assertThat(drain(salts.current().updatedAfter(Instant.parse("2025-12-31T23:59:59Z")))).hasSize(100);
    assertThat(drain(salts.current().updatedAfter(Instant.parse("2026-01-01T00:00:00Z")))).isEmpty();
  }

  @Test
  void rotateFraction_picksOldestFirst_andChangesSaltButNotBucketOfIdentity() {
    clock.advance(Duration.ofMillis(1500));
    byte[] before = salts.current().salt(0);
    assertThat(salts.rotateFraction(0.1)).isEqualTo(10);
    assertThat(salts.current().generation(0)).isEqualTo(1);
    assertThat(salts.current().salt(0)).isNotEqualTo(before);
    // effective time is rounded up to the next whole second
    assertThat(salts.current().effectiveAt(0)).isEqualTo(Instant.parse("2026-01-01T00:00:02Z"));
    clock.advance(Duration.ofSeconds(10));
    salts.rotateFraction(0.1);
    // the second rotation takes the next oldest buckets (generation 0), not the same ones
    Set<Integer> rotatedTwice = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      if (salts.current().generation(i) > 1) {
        rotatedTwice.add(i);
      }
    }
    assertThat(rotatedTwice).isEmpty();
    assertThat(salts.current().rotatedCount()).isEqualTo(20);
  }

  @Test
  void updatedAfter_isStrictlyAfter_andOrderedByTime() {
    clock.advance(Duration.ofSeconds(10));
    salts.rotateBuckets(List.of(salts.current().bucketId(7)));
    Instant first = salts.current().effectiveAt(7);
    clock.advance(Duration.ofSeconds(10));
    salts.rotateBuckets(List.of(salts.current().bucketId(3)));
    assertThat(drain(salts.current().updatedAfter(first.minusSeconds(1)))).containsExactly(7, 3);
    assertThat(drain(salts.current().updatedAfter(first))).containsExactly(3);
    List<Integer> all = drain(salts.current().updatedAfter(Instant.EPOCH));
    assertThat(all).hasSize(100);
    assertThat(all.subList(98, 100)).containsExactly(7, 3);
  }

  @Test
  void rotateBuckets_unknownId_isAClientError() {
    assertThatThrownBy(() -> salts.rotateBuckets(List.of("nope")))
        .isInstanceOf(VeilException.class)
        .hasMessageContaining("unknown bucket id");
  }

  @Test
  void rotateDaily_runsOncePerUtcDay_startingTheDayAfterCreation() {
    assertThat(salts.rotateDaily(0.05)).isZero();
    clock.advance(Duration.ofDays(1));
    assertThat(salts.rotateDaily(0.05)).isEqualTo(5);
    assertThat(salts.rotateDaily(0.05)).isZero();
    clock.advance(Duration.ofDays(1));
    assertThat(salts.rotateDaily(0.05)).isEqualTo(5);
  }

  @Test
  void anotherNode_seesRotations_afterCatchUp() {
    SaltService other = new SaltService(system, stores.salts(), stores.meta(), clock);
    salts.rotateFraction(0.5);
    assertThat(other.current().rotatedCount()).isZero();
    other.catchUp();
    assertThat(other.current().rotatedCount()).isEqualTo(50);
    for (int i = 0; i < 100; i++) {
      assertThat(other.current().salt(i)).isEqualTo(salts.current().salt(i));
    }
  }

  @Test
  void bucketIds_areStableOpaqueAndUnique() {
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      String id = salts.current().bucketId(i);
      assertThat(id).matches("[A-Za-z0-9_-]{12}");
      ids.add(id);
    }
    assertThat(ids).hasSize(100);
    SaltSystem again = SaltSystem.loadOrCreate(stores.meta(), 100, clock, new SecureRandom());
    assertThat(SaltSnapshot.initial(again).bucketId(5)).isEqualTo(salts.current().bucketId(5));
  }

  @Test
  void loadOrCreate_withDifferentBucketCount_failsNamingTheSetting() {
    assertThatThrownBy(() -> SaltSystem.loadOrCreate(stores.meta(), 64, clock, new SecureRandom()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("salt.buckets");
  }
}
