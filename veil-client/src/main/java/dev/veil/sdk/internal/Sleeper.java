package dev.veil.sdk.internal;

import java.time.Duration;

/** Waits between retries; tests pass one that records the waits instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
  /** The real one: {@link Thread#sleep}. */
  Sleeper THREAD_SLEEP = d -> Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));

  void sleep(Duration duration) throws InterruptedException;
}
