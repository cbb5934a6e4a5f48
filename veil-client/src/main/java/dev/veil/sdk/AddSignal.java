package dev.veil.sdk;

/**
 * Counts the entries a {@link MappingCache} has added since it was opened and wakes a mapping run
 * that waits for more ({@link MappingCache#mapPendingWhile}). Thread-safe.
 */
final class AddSignal {
  private long added;

  /** Records {@code count} new entries and wakes waiters. */
  synchronized void record(long count) {
    added += count;
    notifyAll();
  }

  /** Entries added so far. */
  synchronized long count() {
    return added;
  }

  /** Waits up to 50 ms for an add after {@code seen} entries. */
  synchronized void awaitMoreThan(long seen) {
    if (added == seen) {
      try {
        wait(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for identifiers to be added", e);
      }
    }
  }
}
