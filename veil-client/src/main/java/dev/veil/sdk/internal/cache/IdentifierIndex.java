package dev.veil.sdk.internal.cache;

import java.io.IOException;
import java.util.function.IntPredicate;

/**
 * Entry numbers by identifier, in memory: an open-addressing table (linear probing, at most half
 * full) of 8-byte slots, each holding 32 bits of the identifier's {@link Fingerprint} and the entry
 * number; 16 to 32 bytes per entry as it grows. The table is rebuilt from the file when the cache
 * is opened. A slot whose fingerprint bits match is a candidate only: the caller confirms it
 * against the stored identifier. Slots of removed entries stay until the next growth drops them.
 * Not thread-safe (the store guards it).
 */
final class IdentifierIndex {
  /** Confirms that a candidate entry holds the identifier looked up (and is not removed). */
  interface Confirm {
    boolean same(int entry) throws IOException;
  }

  /**
   * Slots a {@link #reserve} asks for at most (8 bytes each, 256 MiB); growth goes on as usual
   * beyond.
   */
  private static final int MAX_CAPACITY = 1 << 25;

  private long[] slots;
  private int mask;
  private int used;
  private final IntPredicate live;

  /**
   * @param live whether an entry is still held (slots of others are dropped when the table grows)
   */
  IdentifierIndex(int expected, IntPredicate live) {
    int capacity = Integer.highestOneBit(Math.max(16, expected) * 2 - 1) << 1;
    this.slots = new long[capacity];
    this.mask = capacity - 1;
    this.live = live;
  }

  /** The entry holding the identifier with {@code hash}, or -1. */
  int find(long hash, Confirm confirm) throws IOException {
    int fp = (int) (hash >>> 32);
    for (int i = fp & mask; ; i = (i + 1) & mask) {
      long slot = slots[i];
      if (slot == 0) {
        return -1;
      }
      if ((int) (slot >>> 32) == fp) {
        int entry = (int) slot - 1;
        if (confirm.same(entry)) {
          return entry;
        }
      }
    }
  }

  /**
   * Reads the first slot of hashes {@code [from, to)}, so that the lookups that follow find them in
   * the CPU cache: these reads do not depend on each other, so the processor has many of them in
   * flight at once, where a lookup loop waits for each miss in turn (the table is far larger than
   * the cache).
   */
  void prefetch(long[] hashes, int from, int to) {
    long[] table = slots;
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += table[(int) (hashes[i] >>> 32) & mask];
    }
    sink = sum;
  }

  /** Keeps {@link #prefetch}'s reads from being optimized away. */
  @SuppressWarnings("unused")
  private long sink;

  /** Adds {@code entry} under {@code hash}; the caller has found it absent. */
  void insert(long hash, int entry) {
    if (used + 1 > slots.length / 2) {
      grow();
    }
    place(slots, mask, (int) (hash >>> 32), entry);
    used++;
  }

  private static void place(long[] table, int mask, int fp, int entry) {
    int i = fp & mask;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = (long) fp << 32 | (entry + 1L);
  }

  /**
   * Makes room for {@code entries} in all without growing again (the table stays at most half
   * full).
   */
  void reserve(int entries) {
    int capacity = slots.length;
    while (entries + 1 > capacity / 2 && capacity < MAX_CAPACITY) {
      capacity <<= 1;
    }
    if (capacity > slots.length) {
      rebuild(capacity);
    }
  }

  private void grow() {
    int held = 0;
    for (long slot : slots) {
      if (slot != 0 && live.test((int) slot - 1)) {
        held++;
      }
    }
    int capacity = slots.length;
    while (held + 1 > capacity / 4) {
      capacity <<= 1;
    }
    if (capacity == slots.length && held == used) {
      capacity <<= 1;
    }
    rebuild(capacity);
  }

  /** Moves the slots of entries still held into a table of {@code capacity} slots. */
  private void rebuild(int capacity) {
    long[] table = new long[capacity];
    int newMask = capacity - 1;
    int held = 0;
    for (long slot : slots) {
      if (slot != 0 && live.test((int) slot - 1)) {
        place(table, newMask, (int) (slot >>> 32), (int) slot - 1);
        held++;
      }
    }
    slots = table;
    mask = newMask;
    used = held;
  }
}
