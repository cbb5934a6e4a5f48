package dev.veil.sdk.internal.cache;

/**
 * Counts the store's writes and wakes threads that wait for one (an export following a mapping
 * run). Waits are short and callers check their condition again either way, so a missed wake-up
 * costs at most one wait. Thread-safe.
 */
final class Changes {
  private static final long WAIT_MILLIS = 20;
  private long count;

  synchronized void happened() {
    count++;
    notifyAll();
  }

  synchronized long count() {
    return count;
  }

  /** Waits until a write after {@code seen} writes, or briefly. */
  synchronized void awaitAfter(long seen) {
    if (count == seen) {
      try {
        wait(WAIT_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for mappings", e);
      }
    }
  }
}
