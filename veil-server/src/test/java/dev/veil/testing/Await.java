package dev.veil.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that another thread or process makes true (propagation, background jobs).
 */
public final class Await {
  private Await() {}

  /**
   * Polls every 20 ms; returns how long it took, or throws AssertionError after {@code timeout}.
   */
  public static Duration until(Duration timeout, String what, BooleanSupplier condition)
      throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
      }
      Thread.sleep(20);
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }
}
