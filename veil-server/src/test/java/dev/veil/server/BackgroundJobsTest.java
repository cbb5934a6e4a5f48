package dev.veil.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.common.StoreUnavailableException;
import dev.veil.config.VeilConfig;
import dev.veil.salt.SaltSnapshot;
import dev.veil.testing.CapturedLogs;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.InMemoryStores.Part;
import dev.veil.testing.MutableClock;
import dev.veil.testing.TestConfigs;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The background work of a node, driven by hand (no threads): catch-up records a successful sync in
 * readiness and survives an outage; the rotation job runs each salt period once.
 */
class BackgroundJobsTest {
  private final MutableClock clock = MutableClock.at("2026-02-01T00:00:00Z");
  private final InMemoryStores stores = new InMemoryStores();
  private final VeilConfig config =
      TestConfigs.config("salt.rotation-period", "10s", "salt.daily-rotation-fraction", "1/8");
  private final ServiceGraph.Built built = ServiceGraph.build(config, clock, stores);
  private final ServiceGraph.Built otherBuilt = ServiceGraph.build(config, clock, stores);
  private final Services node = built.services();
  private final Services otherNode = otherBuilt.services();
  private final BackgroundJobs jobs =
      new BackgroundJobs(node, built.deductions(), stores.jobLock(), clock);

  @Test
  void syncOnce_bringsInWhatAnotherNodeWrote_andRecordsTheSync() {
    byte[] hash = new byte[32];
    hash[0] = 7;
    otherNode.optOuts().record(hash);
    clock.advance(Duration.ofSeconds(3));
    Instant started = clock.instant();

    jobs.syncOnce();

    assertThat(node.optOuts().isOptedOut(hash)).isTrue();
    assertThat(node.readiness().lastSync()).isEqualTo(started);
    assertThat(node.readiness().syncAge()).isZero();
  }

  @Test
  void syncOnce_duringAnOutage_keepsTheLastSync_andRecordsTheNextOneAfter() {
    Instant before = node.readiness().lastSync();
    stores.setDown(true);
    clock.advance(Duration.ofMinutes(3));

    jobs.syncOnce(); // logged, not thrown

    assertThat(node.readiness().lastSync()).isEqualTo(before);
    assertThat(node.readiness().syncAge()).isEqualTo(Duration.ofMinutes(3));
    stores.setDown(false);
    jobs.syncOnce();
    assertThat(node.readiness().syncAge()).isZero();
  }

  @Test
  void syncOnce_afterARotation_rebuildsTheOptOutStatusIndex_onceOneWasAskedFor() {
    byte[] hash = new byte[32];
    hash[0] = 9;
    node.optOuts().record(hash);
    AtomicInteger reads = new AtomicInteger();
    stores.beforeEachCall(
        call -> {
          if (call.part() == Part.OPT_OUTS && !call.write()) {
            reads.incrementAndGet();
          }
        });
    otherNode.salts().rotateFraction(1.0);
    jobs.syncOnce();
    int catchUpOnly = reads.get();
    assertThat(node.optOuts().statusIndexBytes()).isZero(); // nobody asked: nothing built

    node.optOuts().statusOf(List.of(), node.salts().current()); // builds the index
    otherNode.salts().rotateFraction(1.0);
    reads.set(0);
    jobs.syncOnce();
    assertThat(reads.get()).isEqualTo(catchUpOnly + 1); // the catch-up and the rebuild

    reads.set(0);
    SaltSnapshot salts = node.salts().current();
    byte[] id = salts.hashWithSalt(hash, salts.bucketOf(hash));
    assertThat(node.optOuts().statusOf(List.of(id), salts)).hasSize(1);
    assertThat(reads.get()).isEqualTo(1); // the confirmation only: no build in the request
  }

  @Test
  void rotateOnce_runsEachSaltPeriodOnce_evenFromTwoNodes() {
    BackgroundJobs other =
        new BackgroundJobs(otherNode, otherBuilt.deductions(), stores.jobLock(), clock);
    clock.advance(Duration.ofSeconds(10));

    jobs.rotateOnce();
    other.rotateOnce();
    jobs.rotateOnce();

    assertThat(stores.saltRuns())
        .containsExactly(java.util.Map.entry(Instant.parse("2026-02-01T00:00:10Z"), 8));
    clock.advance(Duration.ofSeconds(10));
    other.rotateOnce();
    jobs.rotateOnce();
    assertThat(stores.saltRuns()).hasSize(2);
    jobs.syncOnce();
    assertThat(node.salts().current().rotatedCount()).isEqualTo(16);
  }

  @Test
  void syncOnce_whoseStoreCallTheStopInterrupts_logsNoOutage() {
    try (CapturedLogs logs = CapturedLogs.of(BackgroundJobs.class)) {
      // What a node's stop does to a catch-up in flight: close() interrupts it inside a store call.
      stores.beforeEachCall(
          call -> {
            jobs.close();
            throw new StoreUnavailableException("read bucket salts interrupted on the store", null);
          });

      jobs.syncOnce();

      assertThat(logs.messages()).isEmpty();
    } finally {
      stores.beforeEachCall(null);
    }
  }

  @Test
  void rotateOnce_duringAnOutage_doesNotThrow() {
    stores.setDown(true);
    clock.advance(Duration.ofDays(2));
    jobs.rotateOnce();
    stores.setDown(false);
    jobs.rotateOnce();
    assertThat(stores.saltRuns()).hasSize(1);
  }
}
