package dev.veil.salt;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Each bucket's current salt and its id, side by side in one array, each computed the first time it
 * is read and then kept. Readers get an offset into {@link #records()}, not a copy.
 *
 * <p>Design note: layout. A record is {@value #RECORD_BYTES} bytes: the salt (32), the bucket id
 * (12 ASCII characters), a ready flag for each, two bytes of padding. Mapping one identifier reads
 * its bucket's salt and, in a map answer, the bucket's id: one record, so one or two cache lines of
 * a table far larger than the caches, where salts, ids and their flags in four separate arrays cost
 * four misses per identifier (measured: a map batch over 5,000 buckets took twice the time per
 * identifier of one that kept hitting the same 1,000).
 *
 * <p>Design note: publication. A field is valid once its flag is set; the flag is written with
 * release semantics after the field's bytes and read with acquire semantics before them, so a
 * reader that sees the flag sees the whole field. Two threads may compute the same field at once:
 * both write the same bytes (the derivations are pure functions of the bucket), so a reader can
 * only ever see those bytes, never a mix with the zeros the array started with. The two fields of a
 * record are written independently and never overlap.
 *
 * <p>Thread-safe.
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
  static final int RECORD_BYTES = 48;
  private static final int SALT_AT = 0;
  private static final int ID_AT = SALT_AT + SALT_BYTES;
  private static final int SALT_READY_AT = ID_AT + ID_BYTES;
  private static final int ID_READY_AT = SALT_READY_AT + 1;
  private static final VarHandle FLAG = MethodHandles.arrayElementVarHandle(byte[].class);

  private final byte[] records;
  private final Deriver salt;
  private final Deriver id;

  BucketRecords(int buckets, Deriver salt, Deriver id) {
    this.records = new byte[Math.multiplyExact(buckets, RECORD_BYTES)];
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
    for (int bucket = 0, r = 0; bucket < changed.length; bucket++, r += RECORD_BYTES) {
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
    return field(bucket * RECORD_BYTES, SALT_AT, SALT_READY_AT, salt, bucket);
  }

  /**
   * The offset of {@code bucket}'s id ({@value #ID_BYTES} ASCII bytes), computing it first if
   * needed.
   */
  int id(int bucket) {
    return field(bucket * RECORD_BYTES, ID_AT, ID_READY_AT, id, bucket);
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
