package dev.veil.optout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.optout.OptOutService.OptedOut;
import dev.veil.salt.SaltSnapshot;
import dev.veil.salt.SaltSystem;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.InMemoryStores.Part;
import dev.veil.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link OptOutService#statusOf}: answers by advertising id, under the salts it is asked with. */
class OptOutServiceStatusTest {
  private static final SaltSnapshot SALTS = salts(1);
  private static final SaltSnapshot OTHER_SALTS = salts(40);

  private final MutableClock clock = MutableClock.at("2026-03-01T00:00:00Z");
  private final InMemoryStores stores = new InMemoryStores();
  private final OptOutService service = new OptOutService(stores.optOuts(), clock);

  @Test
  void statusOf_listsOnlyOptedOutIds_inTheOrderAsked_withTheirTime() {
    byte[] first = hash(1);
    byte[] second = hash(2);
    Instant firstAt = service.record(first);
    clock.advance(Duration.ofSeconds(5));
    Instant secondAt = service.record(second);

    List<OptedOut> found =
        service.statusOf(
            List.of(id(second, SALTS), id(hash(3), SALTS), first, id(first, SALTS)), SALTS);

    assertThat(found).containsExactly(new OptedOut(0, secondAt), new OptedOut(3, firstAt));
  }

  @Test
  void statusOf_underOtherSalts_listsTheIdsOfThoseSalts_only() {
    byte[] hash = hash(1);
    service.record(hash);
    assertThat(service.statusOf(List.of(id(hash, SALTS)), SALTS)).hasSize(1);

    assertThat(service.statusOf(List.of(id(hash, SALTS), id(hash, OTHER_SALTS)), OTHER_SALTS))
        .extracting(OptedOut::position)
        .containsExactly(1);
  }

  @Test
  void record_whileTheIndexIsBuilt_isNotHeldUp_andIsListedOnceBuilt() throws Exception {
    service.record(hash(1));
    CountDownLatch gate = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    stores.holdCalls(call -> call.part() == Part.OPT_OUTS && !call.write(), gate, entered);
    Thread builder = new Thread(() -> service.prepareStatus(SALTS));
    builder.start();
    entered.await();

    service.record(hash(2)); // returns while the build's store read is held
    gate.countDown();
    builder.join();
    stores.beforeEachCall(null);

    assertThat(service.statusOf(List.of(id(hash(1), SALTS), id(hash(2), SALTS)), SALTS))
        .extracting(OptedOut::position)
        .containsExactly(0, 1);
  }

  @Test
  void statusOf_whileARebuildRuns_answersFromTheOldIndex_withoutWaiting() throws Exception {
    byte[] hash = hash(1);
    service.record(hash);
    service.prepareStatus(SALTS);
    CountDownLatch gate = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    AtomicBoolean holdOne = new AtomicBoolean(true);
    stores.beforeEachCall(
        call -> {
          if (call.part() == Part.OPT_OUTS && !call.write() && holdOne.getAndSet(false)) {
            entered.countDown();
            try {
              gate.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
    Thread rebuild = new Thread(() -> service.prepareStatus(OTHER_SALTS));
    rebuild.start();
    entered.await();

    // The old index names the id under the old salts; confirmed under the new ones, it is not
    // this identity's id any more. Its new id is not known until the rebuild ends.
    assertThat(service.statusOf(List.of(id(hash, SALTS), id(hash, OTHER_SALTS)), OTHER_SALTS))
        .isEmpty();
    gate.countDown();
    rebuild.join();

    assertThat(service.statusOf(List.of(id(hash, SALTS), id(hash, OTHER_SALTS)), OTHER_SALTS))
        .extracting(OptedOut::position)
        .containsExactly(1);
  }

  @Test
  void statusIndexBytes_areZero_untilAStatusIsAskedFor() {
    service.record(hash(1));
    assertThat(service.statusIndexBytes()).isZero();

    service.statusOf(List.of(), SALTS);

    assertThat(service.statusIndexBytes()).isPositive();
  }

  private static byte[] id(byte[] firstLevelHash, SaltSnapshot salts) {
    return salts.hashWithSalt(firstLevelHash, salts.bucketOf(firstLevelHash));
  }

  private static byte[] hash(int i) {
    byte[] b = new byte[32];
    for (int k = 0; k < b.length; k++) {
      b[k] = (byte) (i * 31 + k * 7);
    }
    return b;
  }

  private static SaltSnapshot salts(int start) {
    return SaltSnapshot.initial(
        new SaltSystem(
            16,
            Instant.parse("2026-01-01T00:00:00Z"),
            filled(start),
            filled(start + 1),
            filled(start + 2)));
  }

  private static byte[] filled(int start) {
    byte[] b = new byte[32];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (start + i);
    }
    return b;
  }
}
