package dev.veil.salt;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A table of fixed-size records (bucket salts, bucket ids) that are computed from their index the
 * first time they are read, then kept. The records live in one array, so a reader gets an offset
 * into {@link #records()}, not a copy.
 *
 * <p>Design note: publication. A record is valid once its ready flag is set; the flag is written
 * with release semantics after the record's bytes and read with acquire semantics before them, so
 * a reader that sees the flag sees the whole record. Two threads may compute the same record at
 * once: both write the same bytes (the {@link Deriver} is a pure function of the index), so a
 * reader can only ever see those bytes, never a mix with the zeros the array started with. The
 * cost on the hot path, once a record exists, is one extra load and branch.
 *
 * <p>Thread-safe.
 */
final class DerivedTable {
  private static final VarHandle READY = MethodHandles.arrayElementVarHandle(byte[].class);

  /** Computes record {@code index} into {@code out[off, off + recordBytes)}; deterministic. */
  @FunctionalInterface
  interface Deriver {
    void derive(int index, byte[] out, int off);
  }

  private final int recordBytes;
  private final byte[] records;
  private final byte[] ready;
  private final Deriver deriver;

  DerivedTable(int count, int recordBytes, Deriver deriver) {
    this.recordBytes = recordBytes;
    this.records = new byte[Math.multiplyExact(count, recordBytes)];
    this.ready = new byte[count];
    this.deriver = deriver;
  }

  /**
   * A table with the same records as {@code previous} except {@code changed} ones, which will be
   * computed again with {@code deriver}. Records that {@code previous} had computed are copied,
   * so the new table starts as warm as the old one.
   */
  static DerivedTable copyOf(DerivedTable previous, Deriver deriver, boolean[] changed) {
    DerivedTable next = new DerivedTable(previous.ready.length, previous.recordBytes, deriver);
    for (int i = 0; i < next.ready.length; i++) {
      if (!changed[i] && previous.isReady(i)) {
        System.arraycopy(previous.records, i * next.recordBytes, next.records, i * next.recordBytes, next.recordBytes);
        next.ready[i] = 1; // published with the table itself (a new snapshot goes out through an atomic reference)
      }
    }
    return next;
  }

  /** The array holding every record; read record {@code i} at {@link #offset(int) offset(i)}. */
  byte[] records() {
    return records;
  }

  /** The offset of record {@code index} in {@link #records()}, computing the record first if needed. */
  int offset(int index) {
    int off = index * recordBytes;
    if (!isReady(index)) {
      deriver.derive(index, records, off);
      READY.setRelease(ready, index, (byte) 1);
    }
    return off;
  }

  private boolean isReady(int index) {
    return (byte) READY.getAcquire(ready, index) != 0;
  }
}
