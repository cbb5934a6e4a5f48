package dev.veil.sdk.internal.cache;

import java.util.Arrays;

/**
 * What the store keeps in memory per entry (16 to 32 bytes as the arrays grow, plus the index):
 * where its {@code ADD} record is, where its current {@code MAP} record is (or that it has none, or
 * was removed), and whether it is stale. The values themselves stay in the file. Counts are kept as
 * entries change, so sizes are O(1). Not thread-safe (the store guards it).
 */
final class EntryTable {
  static final long UNMAPPED = -1;
  static final long REMOVED = -2;

  private long[] addAt = new long[1024];
  private long[] mapAt = new long[1024];
  private long[] staleBits = new long[16];

  /**
   * Per entry mapped over v3: its refresh time in epoch seconds (0: mapped over v1, or not mapped);
   * 4 bytes an entry.
   */
  private int[] refreshSeconds = new int[1024];

  private int count;
  private int held;
  private int current;

  /** Records that a newer one has replaced (old mappings, stale marks, removed entries). */
  private long replaced;

  int count() {
    return count;
  }

  /** Entries not removed. */
  int held() {
    return held;
  }

  /** Entries held that wait to be mapped: without a mapping or with a stale one. */
  int pending() {
    return held - current;
  }

  long replacedRecords() {
    return replaced;
  }

  /** Makes room for {@code total} entries in all without growing again. */
  void reserve(int total) {
    if (total > addAt.length) {
      resize(total);
    }
  }

  private void resize(int length) {
    addAt = Arrays.copyOf(addAt, length);
    mapAt = Arrays.copyOf(mapAt, length);
    refreshSeconds = Arrays.copyOf(refreshSeconds, length);
    staleBits = Arrays.copyOf(staleBits, length / 64 + 1);
  }

  /**
   * Appends a new, unmapped entry whose {@code ADD} record is at {@code position}; returns its
   * number.
   */
  int add(long position) {
    if (count == addAt.length) {
      resize(count * 2);
    }
    addAt[count] = position;
    mapAt[count] = UNMAPPED;
    held++;
    return count++;
  }

  long addAt(int entry) {
    return addAt[entry];
  }

  /** The position of the entry's {@code MAP} record, {@link #UNMAPPED} or {@link #REMOVED}. */
  long mapAt(int entry) {
    return mapAt[entry];
  }

  boolean isHeld(int entry) {
    return mapAt[entry] != REMOVED;
  }

  boolean isStale(int entry) {
    return (staleBits[entry >>> 6] & (1L << entry)) != 0;
  }

  /** Whether the entry waits to be mapped. */
  boolean isPending(int entry) {
    long at = mapAt[entry];
    return at == UNMAPPED || (at >= 0 && isStale(entry));
  }

  /**
   * The entry's refresh time in epoch seconds if it was mapped over v3, else 0 (due at once on v3).
   */
  long refreshSeconds(int entry) {
    return Integer.toUnsignedLong(refreshSeconds[entry]);
  }

  /**
   * Records the entry's new mapping (clearing a stale mark), with its refresh time in epoch
   * milliseconds (0 for a v1 mapping, which has none).
   */
  void mapped(int entry, long position, long refreshFromMillis) {
    // Whole seconds (the server's unit), rounded up, held as an unsigned int: good to 2106.
    long seconds = Math.min(0xFFFF_FFFFL, Math.max(0, (refreshFromMillis + 999) / 1000));
    refreshSeconds[entry] = (int) seconds;
    mapped(entry, position);
  }

  /** Records the entry's new mapping (clearing a stale mark). */
  private void mapped(int entry, long position) {
    if (mapAt[entry] == REMOVED) {
      throw new IllegalStateException("mapping for a removed entry");
    }
    if (mapAt[entry] >= 0) {
      replaced++;
    }
    if (isPending(entry)) {
      current++;
    }
    clearStale(entry);
    mapAt[entry] = position;
  }

  /** Marks a mapped, current entry stale; false if it was not one. */
  boolean markStale(int entry) {
    if (mapAt[entry] < 0 || isStale(entry)) {
      return false;
    }
    staleBits[entry >>> 6] |= 1L << entry;
    current--;
    return true;
  }

  void remove(int entry) {
    if (mapAt[entry] == REMOVED) {
      return;
    }
    if (!isPending(entry)) {
      current--;
    }
    replaced += mapAt[entry] >= 0 ? 2 : 1;
    clearStale(entry);
    mapAt[entry] = REMOVED;
    held--;
  }

  private void clearStale(int entry) {
    staleBits[entry >>> 6] &= ~(1L << entry);
  }
}
