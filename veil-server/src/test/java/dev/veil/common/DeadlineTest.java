package dev.veil.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class DeadlineTest {
  private final AtomicLong nanos = new AtomicLong(1_000);

  private Deadline after(long millis) {
    return Deadline.after(Duration.ofMillis(millis), nanos::get);
  }

  private void advance(long millis) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  @Test
  void remaining_shrinksWithTheTicker_andPassesAtZero() {
    Deadline d = after(500);
    advance(200);

    assertThat(d.remainingMillis()).isEqualTo(300);
    assertThat(d.passed()).isFalse();
    advance(300);
    assertThat(d.passed()).isTrue();
  }

  @Test
  void startingAt_countsFromTheArrival_notFromNow() {
    long arrived = nanos.get();
    advance(400); // queued for a worker

    Deadline d = Deadline.startingAt(arrived, Duration.ofMillis(500), nanos::get);

    assertThat(d.remainingMillis()).isEqualTo(100);
    assertThat(d.budget()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void run_makesTheDeadlineCurrentOnThisThreadOnly_andRestoresNone() throws Exception {
    Deadline d = after(500);
    boolean[] seenElsewhere = {true};

    d.run(
        () -> {
          assertThat(Deadline.current()).containsSame(d);
          Thread other = new Thread(() -> seenElsewhere[0] = Deadline.current().isPresent());
          other.start();
          join(other);
          return null;
        });

    assertThat(seenElsewhere[0]).isFalse();
    assertThat(Deadline.current()).isEmpty();
  }

  @Test
  void run_nested_keepsTheEarlierDeadline() {
    Deadline early = after(100);
    Deadline late = after(900);

    early.run(() -> late.run(() -> assertThat(Deadline.current()).containsSame(early)));
    late.run(() -> early.run(() -> assertThat(Deadline.current()).containsSame(early)));
    late.run(
        () -> {
          early.run(() -> null);
          return assertThat(Deadline.current()).containsSame(late);
        });
  }

  @Test
  void run_restoresTheOuterDeadline_whenTheWorkThrows() {
    Deadline outer = after(900);

    outer.run(
        () -> {
          assertThatThrownBy(
                  () ->
                      after(100)
                          .run(
                              () -> {
                                throw new IllegalStateException("boom");
                              }))
              .hasMessage("boom");
          return assertThat(Deadline.current()).containsSame(outer);
        });
  }

  @Test
  void lock_withoutADeadline_waitsAsLongAsItTakes() throws Exception {
    ReentrantLock lock = new ReentrantLock();
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder =
        new Thread(
            () -> {
              lock.lock();
              try {
                held.countDown();
                await(release);
              } finally {
                lock.unlock();
              }
            });
    holder.start();
    held.await();

    Thread waiter =
        new Thread(
            () -> {
              Deadline.lock(lock, "the test lock");
              lock.unlock();
            });
    waiter.start();
    waiter.join(200);
    assertThat(waiter.isAlive()).as("still waiting for the lock").isTrue();
    release.countDown();
    waiter.join(10_000);
    assertThat(waiter.isAlive()).isFalse();
    holder.join();
  }

  @Test
  void lock_heldElsewhere_failsAtTheDeadline_namingTheLock() throws Exception {
    ReentrantLock lock = new ReentrantLock();
    Thread holder = new Thread(lock::lock);
    holder.start();
    holder.join(); // the lock stays held by a thread that has ended

    Deadline passed = after(0);
    assertThatThrownBy(
            () ->
                passed.run(
                    () -> {
                      Deadline.lock(lock, "the test lock");
                      return null;
                    }))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("the test lock was still busy at the request's deadline (db.timeout 0 ms)");
  }

  @Test
  void lock_free_isTakenEvenWithLittleTimeLeft() {
    ReentrantLock lock = new ReentrantLock();

    after(1)
        .run(
            () -> {
              Deadline.lock(lock, "the test lock");
              return null;
            });

    assertThat(lock.isHeldByCurrentThread()).isTrue();
    lock.unlock();
  }

  private static void join(Thread t) {
    try {
      t.join();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
