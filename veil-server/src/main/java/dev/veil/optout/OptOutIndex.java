package dev.veil.optout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The in-memory set of opted-out identities, looked up on every generate, refresh and map.
 *
 * <p>Design note. Opt-outs are only ever added, and the set must stay small (docs/spec.md 4: at
 * most 32 bytes per record at 10 million). It stores a 64-bit fingerprint of each first-level hash
 * (its first 8 bytes; 0 is mapped to 1 because 0 marks an empty slot) in an open-addressing table
 * with linear probing, grown by doubling at 3/4 load: 8 bytes per slot, 10.7 to 21.3 bytes per
 * record. First-level hashes are outputs of SHA-256, so fingerprints are uniform; a false positive
 * needs a 64-bit collision (about 1 in 2^40 at 10 million records) and would wrongly treat one
 * identity as opted out, never the reverse.
 *
 * <p>Concurrency: any number of readers, one writer at a time (writers synchronize on this object).
 * Slots are written with release semantics and read with acquire semantics; growth builds a new
 * table and publishes it through a volatile field, so a reader sees either table, both correct for
 * every record added before the read began.
 */
public final class OptOutIndex {
  private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final int MIN_CAPACITY = 1 << 10;

  private volatile long[] table;
  private int size;

  public OptOutIndex() {
    this.table = new long[MIN_CAPACITY];
  }

  /** Whether the identity with this 32-byte first-level hash has opted out. Lock-free. */
  public boolean contains(byte[] firstLevelHash) {
    long fp = fingerprint(firstLevelHash);
    long[] t = table;
    int mask = t.length - 1;
    for (int i = spread(fp) & mask; ; i = (i + 1) & mask) {
      long v = (long) SLOTS.getAcquire(t, i);
      if (v == fp) {
        return true;
      }
      if (v == 0) {
        return false;
      }
    }
  }

  /** Adds an identity; returns whether it was new. */
  public synchronized boolean add(byte[] firstLevelHash) {
    long fp = fingerprint(firstLevelHash);
    if ((size + 1) * 4L > table.length * 3L) {
      table = grown(table);
    }
    if (insert(table, fp)) {
      size++;
      return true;
    }
    return false;
  }

  public synchronized int size() {
    return size;
  }

  /** Bytes held by the table (for the memory benchmark and metrics). */
  public long tableBytes() {
    return (long) table.length * Long.BYTES;
  }

  private static boolean insert(long[] t, long fp) {
    int mask = t.length - 1;
    for (int i = spread(fp) & mask; ; i = (i + 1) & mask) {
      long v = (long) SLOTS.getAcquire(t, i);
      if (v == fp) {
        return false;
      }
      if (v == 0) {
        SLOTS.setRelease(t, i, fp);
        return true;
      }
    }
  }

  private static long[] grown(long[] old) {
    long[] next = new long[old.length * 2];
    for (long v : old) {
      if (v != 0) {
        insert(next, v);
      }
    }
    return next;
  }

  static long fingerprint(byte[] firstLevelHash) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (firstLevelHash[i] & 0xff);
    }
    return v == 0 ? 1 : v;
  }

  private static int spread(long fp) {
    // The bucket of an identity is taken from the same leading bytes modulo the bucket count, so
    // probe from the high-mixed fold of all 64 bits rather than the low bits alone.
    long h = fp * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
