package dev.veil.sdk.internal;

import java.time.Duration;

/** Waits between retries; tests pass one that records the waits instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
  /** The real one: {@link Thread#sleep}. */
  Sleeper THREAD_SLEEP = new ThreadSleep();

  void sleep(Duration duration) throws InterruptedException;

  /**
   * {@link Thread#sleep}. A class, not a lambda: clients such as {@code veil map} create their
   * caller on the way to their first request, where a JVM links each lambda's call site the first
   * time it runs (docs/benchmarks-client.md, "The way to the first request").
   */
  final class ThreadSleep implements Sleeper {
    private ThreadSleep() {}

    @Override
    public void sleep(Duration d) throws InterruptedException {
      Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));
    }
  }
}
