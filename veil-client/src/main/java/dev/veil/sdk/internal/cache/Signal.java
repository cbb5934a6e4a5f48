package dev.veil.sdk.internal.cache;

import java.util.concurrent.TimeUnit;

/**
 * A count of events (the store's writes, the entries a cache has added) that threads can wait on:
 * an export following a mapping run waits for writes, a mapping run for more entries to map. Waits
 * are bounded and callers check their own condition again after each, so a wake-up missed between
 * reading the count and waiting costs at most one wait. Thread-safe.
 */
public final class Signal {
  private final long waitMillis;
  private final String waitingFor;
  private long count;
  private long wakeUps; // calls of add, so a wake-up without events still releases waiters

  /**
   * @param waitMillis longest wait of {@link #awaitAfter}
   * @param waitingFor what waiters wait for, for the message when one is interrupted
   */
  public Signal(long waitMillis, String waitingFor) {
    this.waitMillis = waitMillis;
    this.waitingFor = waitingFor;
  }

  /** Counts {@code events} more (0: none, a wake-up only) and wakes the waiters. */
  public synchronized void add(long events) {
    count += events;
    wakeUps++;
    notifyAll();
  }

  public synchronized long count() {
    return count;
  }

  /**
   * Returns once the count has passed {@code seen} or {@link #add} was called (with no events: a
   * wake-up only), or after the longest wait.
   *
   * @throws IllegalStateException if the thread is interrupted (its interrupt flag is set again)
   */
  public synchronized void awaitAfter(long seen) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
    long calls = wakeUps;
    try {
      long left = deadline - System.nanoTime();
      while (count == seen && wakeUps == calls && left > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left); // a spurious wake-up waits on
        left = deadline - System.nanoTime();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + waitingFor, e);
    }
  }
}
