package dev.veil.salt;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Each bucket's current salt and its id, side by side in one array, each computed the first time it
 * is read and then kept, and beside them what a v3 map answer reads of the bucket's state. Readers
 * get an offset into {@link #records()}, not a copy.
 *
 * <p>Design note: layout. A record is {@value #RECORD_BYTES} bytes: the salt (32), the bucket id
 * (12 ASCII characters), a ready flag for each, a flag for a bucket rotated at least once, a byte
 * of padding, then the state: the current salt's effective time (epoch milliseconds, 8 bytes), the
 * refresh time (seconds after the store's creation, 4) and the bucket's slot in {@link
 * PreviousSalts} (4). Mapping one identifier reads its bucket's salt and, in a v1 answer, the
 * bucket's id; a v3 answer reads the state instead: one record, so one cache line of a table far
 * larger than the caches, where salts, ids, flags and state in separate arrays cost a miss each
 * (measured: a map batch over 5,000 buckets took twice the time per identifier of one that kept
 * hitting the same 1,000; a v3 answer reading the state from three more arrays cost 0.1 µs more per
 * identifier than one reading it here). The records start {@value #FIRST_RECORD} bytes into the
 * array, so that with the array's 16-byte header each starts on a 64-byte boundary when the array
 * does, as a large array does in G1 (it starts a region); elsewhere a record may straddle two
 * lines, as before.
 *
 * <p>Design note: publication. The state is written for every bucket while the snapshot is built,
 * before it is published (through an atomic reference). A salt or id is valid once its flag is set;
 * the flag is written with release semantics after the field's bytes and read with acquire
 * semantics before them, so a reader that sees the flag sees the whole field. Two threads may
 * compute the same field at once: both write the same bytes (the derivations are pure functions of
 * the bucket), so a reader can only ever see those bytes, never a mix with the zeros the array
 * started with. The fields of a record are written independently and never overlap.
 *
 * <p>Thread-safe once built.
 */
final class BucketRecords {
  /**
   * Computes a field of bucket {@code bucket} into {@code out[off, off + field length)};
   * deterministic.
   */
  @FunctionalInterface
  interface Deriver {
    void derive(int bucket, byte[] out, int off);
  }

  static final int SALT_BYTES = SaltDerivation.SALT_BYTES;
  static final int ID_BYTES = SaltDerivation.ID_CHARS;
  static final int RECORD_BYTES = 64;
  private static final int SALT_AT = 0;
  private static final int ID_AT = SALT_AT + SALT_BYTES;
  private static final int SALT_READY_AT = ID_AT + ID_BYTES;
  private static final int ID_READY_AT = SALT_READY_AT + 1;
  private static final int ROTATED_AT = ID_READY_AT + 1;
  private static final int EFFECTIVE_AT = 48;
  private static final int REFRESH_AT = EFFECTIVE_AT + Long.BYTES;
  private static final int SLOT_AT = REFRESH_AT + Integer.BYTES;

  /** Where the first record starts: 16 (the array's header) + 48 = 64. */
  static final int FIRST_RECORD = 48;

  private static final VarHandle FLAG = MethodHandles.arrayElementVarHandle(byte[].class);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());

  private final byte[] records;
  private final Deriver salt;
  private final Deriver id;

  BucketRecords(int buckets, Deriver salt, Deriver id) {
    this.records = new byte[Math.addExact(FIRST_RECORD, Math.multiplyExact(buckets, RECORD_BYTES))];
    this.salt = salt;
    this.id = id;
  }

  /**
   * A table with the same records as {@code previous}, where the salts of {@code changed} buckets
   * will be computed again with {@code salt}. Fields that {@code previous} had computed are copied
   * (every id, and every salt but the changed ones), so the new table starts as warm as the old
   * one.
   */
  static BucketRecords copyOf(BucketRecords previous, Deriver salt, boolean[] changed) {
    BucketRecords next = new BucketRecords(changed.length, salt, previous.id);
    byte[] from = previous.records;
    byte[] to = next.records;
    for (int bucket = 0, r = FIRST_RECORD; bucket < changed.length; bucket++, r += RECORD_BYTES) {
      // Flags first (acquire), bytes after: a field copied with its flag is complete.
      if (!changed[bucket] && isSet(from, r + SALT_READY_AT)) {
        System.arraycopy(from, r + SALT_AT, to, r + SALT_AT, SALT_BYTES);
        to[r + SALT_READY_AT] =
            1; // published with the table (a new snapshot goes out through an atomic reference)
      }
      if (isSet(from, r + ID_READY_AT)) {
        System.arraycopy(from, r + ID_AT, to, r + ID_AT, ID_BYTES);
        to[r + ID_READY_AT] = 1;
      }
    }
    return next;
  }

  /**
   * The array holding every record; read a field at the offset {@link #salt} or {@link #id}
   * returns.
   */
  byte[] records() {
    return records;
  }

  /**
   * The offset of {@code bucket}'s salt ({@value #SALT_BYTES} bytes), computing it first if needed.
   */
  int salt(int bucket) {
    return field(record(bucket), SALT_AT, SALT_READY_AT, salt, bucket);
  }

  /**
   * The offset of {@code bucket}'s id ({@value #ID_BYTES} ASCII bytes), computing it first if
   * needed.
   */
  int id(int bucket) {
    return field(record(bucket), ID_AT, ID_READY_AT, id, bucket);
  }

  private static int record(int bucket) {
    return FIRST_RECORD + bucket * RECORD_BYTES;
  }

  /**
   * Writes a bucket's state; only while the snapshot that holds these records is built.
   *
   * @param rotated whether the bucket's generation is above 0
   * @param effectiveMs when its current salt took effect
   * @param refreshAfterCreation its refresh time, seconds after the store's creation
   * @param previousSlot its slot in {@link PreviousSalts}, or 0 for none
   */
  void putState(
      int bucket, boolean rotated, long effectiveMs, int refreshAfterCreation, int previousSlot) {
    int r = record(bucket);
    records[r + ROTATED_AT] = (byte) (rotated ? 1 : 0);
    LONG.set(records, r + EFFECTIVE_AT, effectiveMs);
    INT.set(records, r + REFRESH_AT, refreshAfterCreation);
    INT.set(records, r + SLOT_AT, previousSlot);
  }

  /** Whether the bucket was rotated at least once. */
  boolean rotated(int bucket) {
    return records[record(bucket) + ROTATED_AT] != 0;
  }

  /** When the bucket's current salt took effect, in epoch milliseconds. */
  long effectiveMs(int bucket) {
    return (long) LONG.get(records, record(bucket) + EFFECTIVE_AT);
  }

  /** The bucket's refresh time, in seconds after the store's creation. */
  int refreshAfterCreation(int bucket) {
    return (int) INT.get(records, record(bucket) + REFRESH_AT);
  }

  /** The bucket's slot in {@link PreviousSalts}, or 0 for none. */
  int previousSlot(int bucket) {
    return (int) INT.get(records, record(bucket) + SLOT_AT);
  }

  private int field(int record, int at, int readyAt, Deriver deriver, int bucket) {
    if (!isSet(records, record + readyAt)) {
      deriver.derive(bucket, records, record + at);
      FLAG.setRelease(records, record + readyAt, (byte) 1);
    }
    return record + at;
  }

  private static boolean isSet(byte[] records, int flagAt) {
    return (byte) FLAG.getAcquire(records, flagAt) != 0;
  }
}
