package dev.veil.sdk.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The wait-and-wake count behind a run waiting for entries and a walk following a run. */
class SignalTest {
  /** Longer than any test run: a waiter that returns was woken, not timed out. */
  private static final long FOREVER_MILLIS = 600_000;

  @ParameterizedTest
  @ValueSource(longs = {0, 3})
  void events_orAWakeUpWithoutThem_releaseAWaiter_andAreCounted(long events) throws Exception {
    Signal signal = new Signal(FOREVER_MILLIS, "test");
    Thread waiter = waitingThread(signal);

    awaitWaiting(waiter);
    signal.add(events);
    waiter.join(TimeUnit.SECONDS.toMillis(30));

    assertThat(waiter.isAlive()).as("woken by add(%d)", events).isFalse();
    assertThat(signal.count()).isEqualTo(events);
  }

  @Test
  void aWaiterBehindTheCount_doesNotWait() {
    Signal signal = new Signal(FOREVER_MILLIS, "test");
    signal.add(1);

    signal.awaitAfter(0); // returns at once: the count has passed 0

    assertThat(signal.count()).isEqualTo(1);
  }

  private static Thread waitingThread(Signal signal) throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    Thread t =
        new Thread(
            () -> {
              started.countDown();
              signal.awaitAfter(signal.count());
            });
    t.setDaemon(true);
    t.start();
    started.await();
    return t;
  }

  /**
   * Until the thread is in its wait (a wake-up before it would be missed, by design). Nothing
   * signals a thread's entering {@code Object.wait}, so its state is polled, up to a deadline; no
   * outcome depends on how long this takes.
   */
  private static void awaitWaiting(Thread t) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (t.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    assertThat(t.getState()).isEqualTo(Thread.State.TIMED_WAITING);
  }
}
