package dev.veil.salt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.ChangeCursor;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.common.Versioned;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PrimitiveIterator;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class SaltServiceTest {
  private final MutableClock clock = MutableClock.at("2026-01-01T00:00:00Z");
  private final InMemoryStores stores = new InMemoryStores();
  private final SaltSystem system =
      SaltSystem.loadOrCreate(stores.meta(), 100, clock, new SecureRandom());
  private final SaltRotationPolicy daily = new SaltRotationPolicy(0.05, Duration.ofDays(1));
  private final SaltService salts = new SaltService(system, stores.salts(), daily, clock);

  private static List<Integer> drain(PrimitiveIterator.OfInt it) {
    List<Integer> out = new ArrayList<>();
    it.forEachRemaining((int i) -> out.add(i));
    return out;
  }

  @Test
  void initially_everyBucketIsUpdatedAfterATimeBeforeCreation_andNoneAfterIt() {
    assertThat(drain(salts.current().updatedAfter(Instant.parse("2025-12-31T23:59:59Z"))))
        .hasSize(100);
    assertThat(drain(salts.current().updatedAfter(Instant.parse("2026-01-01T00:00:00Z"))))
        .isEmpty();
  }

  /** SHA-256(prefix || the bucket's current salt), as a v3 map answer's current id. */
  private static byte[] current(SaltSnapshot s, byte[] prefix, int bucket) {
    return s.hashWithSalt(prefix, bucket);
  }

  private static byte[] previous(SaltSnapshot s, byte[] prefix, int bucket) {
    byte[] out = new byte[32];
    s.hashWithPreviousSaltInto(prefix, bucket, out, 0);
    return out;
  }

  @Test
  void everyRotationPath_keepsThePreviousSalt_forNinetyDays() {
    byte[] prefix = new byte[32];
    SaltSnapshot before = salts.current();
    clock.advance(Duration.ofDays(1));
    int scheduled = salts.rotateScheduled();
    int admin = salts.rotateFraction(0.05);
    salts.rotateBuckets(List.of(before.bucketId(99)));
    SaltSnapshot after = salts.current();

    int rotated = 0;
    long now = clock.instant().toEpochMilli();
    for (int b = 0; b < 100; b++) {
      if (after.generation(b) == 0) {
        assertThat(after.hasRecentPrevious(b, now)).isFalse();
        continue;
      }
      rotated++;
      assertThat(after.hasRecentPrevious(b, now)).isTrue();
      assertThat(previous(after, prefix, b)).isEqualTo(current(before, prefix, b));
      assertThat(current(after, prefix, b)).isNotEqualTo(current(before, prefix, b));
    }
    assertThat(rotated).isEqualTo(scheduled + admin + 1).isEqualTo(11);
    long ninetyOneDaysLater = now + Duration.ofDays(91).toMillis();
    assertThat(after.hasRecentPrevious(99, ninetyOneDaysLater)).isFalse();
  }

  @Test
  void refreshTime_isSpreadOverTheSecondPeriodAtFirst_thenAPeriodAfterEachRotation() {
    long created = clock.instant().getEpochSecond();
    long period = BucketSalt.REFRESH_PERIOD.toSeconds();
    SaltSnapshot initial = salts.current();
    long nowMs = clock.instant().toEpochMilli();
    assertThat(initial.refreshFromSeconds(0, nowMs)).isEqualTo(created + period);
    assertThat(initial.refreshFromSeconds(50, nowMs)).isEqualTo(created + period + period / 2);
    // once passed, it moves on by whole periods, always after now
    long later = nowMs + Duration.ofDays(65).toMillis();
    assertThat(initial.refreshFromSeconds(0, later)).isEqualTo(created + 3 * period);

    clock.advance(Duration.ofDays(2));
    salts.rotateBuckets(List.of(initial.bucketId(7)));
    long effective = salts.current().effectiveAt(7).getEpochSecond();
    assertThat(salts.current().refreshFromSeconds(7, clock.instant().toEpochMilli()))
        .isEqualTo(effective + period);
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
  void rotateBuckets_unknownId_isNotFound() {
    assertThatThrownBy(() -> salts.rotateBuckets(List.of("nope")))
        .isInstanceOf(VeilException.class)
        .hasMessageContaining("unknown bucket id")
        .extracting(e -> ((VeilException) e).code())
        .isEqualTo(ErrorCode.NOT_FOUND);
  }

  @Test
  void rotateScheduled_runsOncePerUtcDay_startingTheDayAfterCreation() {
    assertThat(salts.rotateScheduled()).isZero();
    assertThat(salts.status().lastDailyRotationDay()).isEqualTo("2026-01-01");
    clock.advance(Duration.ofDays(1));
    assertThat(salts.rotateScheduled()).isEqualTo(5);
    assertThat(salts.rotateScheduled()).isZero();
    assertThat(salts.status().lastDailyRotationDay()).isEqualTo("2026-01-02");
    clock.advance(Duration.ofDays(1));
    assertThat(salts.rotateScheduled()).isEqualTo(5);
    assertThat(stores.saltRuns())
        .containsOnlyKeys(
            Instant.parse("2026-01-02T00:00:00Z"), Instant.parse("2026-01-03T00:00:00Z"));
  }

  @Test
  void rotateScheduled_withAShortPeriod_runsOncePerPeriod_andNamesItByItsStart() {
    SaltService fast =
        new SaltService(
            system, stores.salts(), new SaltRotationPolicy(0.01, Duration.ofSeconds(5)), clock);
    clock.advance(Duration.ofMillis(4_999));
    assertThat(fast.rotateScheduled()).isZero(); // still the creation period
    clock.advance(Duration.ofMillis(1));
    assertThat(fast.rotateScheduled()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(4));
    assertThat(fast.rotateScheduled()).isZero();
    clock.advance(Duration.ofSeconds(11));
    assertThat(fast.rotateScheduled()).isEqualTo(1); // a missed period is not made up
    assertThat(fast.status().lastDailyRotationDay()).isEqualTo("2026-01-01T00:00:20Z");
  }

  @Test
  void rotateScheduled_onTwoNodesAtTheSameMoment_runsThePeriodOnce() {
    SaltService other = new SaltService(system, stores.salts(), daily, clock);
    clock.advance(Duration.ofDays(1));
    // The other node writes its run between this node's catch-up and this node's write, as if
    // both held the job at once (a lock lost with a database restart, a node resuming from a
    // pause).
    AtomicBoolean raced = new AtomicBoolean();
    stores.beforeEachCall(
        call -> {
          if (call.part() == InMemoryStores.Part.SALTS
              && call.write()
              && raced.compareAndSet(false, true)) {
            assertThat(other.rotateScheduled()).isEqualTo(5);
          }
        });

    assertThat(salts.rotateScheduled()).isZero();

    stores.beforeEachCall(null);
    assertThat(stores.saltRuns())
        .containsExactly(Map.entry(Instant.parse("2026-01-02T00:00:00Z"), 5));
    assertThat(salts.current().rotatedCount()).isEqualTo(5);
    for (int i = 0; i < 100; i++) {
      assertThat(salts.current().generation(i)).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void rotateBuckets_racingAnotherNode_rotatesFromTheStoredGeneration() {
    SaltService other = new SaltService(system, stores.salts(), daily, clock);
    String bucket = salts.current().bucketId(9);
    AtomicBoolean raced = new AtomicBoolean();
    stores.beforeEachCall(
        call -> {
          if (call.part() == InMemoryStores.Part.SALTS
              && call.write()
              && raced.compareAndSet(false, true)) {
            other.rotateBuckets(List.of(bucket));
          }
        });

    assertThat(salts.rotateBuckets(List.of(bucket))).isEqualTo(1);

    stores.beforeEachCall(null);
    assertThat(salts.current().generation(9))
        .isEqualTo(2); // two requests, two rotations, no lost one
    other.catchUp();
    assertThat(other.current().salt(9)).isEqualTo(salts.current().salt(9));
  }

  @Test
  void catchUp_ignoresARowDeliveredAgainAfterANewerOne() {
    List<Versioned<BucketSalt>> stale = new ArrayList<>();
    SaltStore redelivering =
        new SaltStore() {
          @Override
          public ChangeCursor forEachChange(
              ChangeCursor since, Consumer<Versioned<BucketSalt>> sink) {
            ChangeCursor next = stores.salts().forEachChange(since, sink);
            stale.forEach(sink);
            return next;
          }

          @Override
          public boolean saveRotations(List<BucketSalt> rotations) {
            return stores.salts().saveRotations(rotations);
          }

          @Override
          public boolean saveScheduledRotation(Instant periodStart, List<BucketSalt> rotations) {
            return stores.salts().saveScheduledRotation(periodStart, rotations);
          }

          @Override
          public Optional<Instant> lastScheduledRun() {
            return stores.salts().lastScheduledRun();
          }
        };
    SaltService node = new SaltService(system, redelivering, daily, clock);
    salts.rotateBuckets(List.of(salts.current().bucketId(4)));
    salts.rotateBuckets(List.of(salts.current().bucketId(4)));
    node.catchUp();
    assertThat(node.current().generation(4)).isEqualTo(2);

    stale.add(new Versioned<>(1, new BucketSalt(4, 1, Instant.parse("2026-01-01T00:00:00Z"))));
    SaltSnapshot before = node.current();
    node.catchUp();
    assertThat(node.current()).isSameAs(before);
    assertThat(node.current().generation(4)).isEqualTo(2);
  }

  @Test
  void anotherNode_seesRotations_afterCatchUp() {
    SaltService other = new SaltService(system, stores.salts(), daily, clock);
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
