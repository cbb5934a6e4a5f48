package dev.veil.salt;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The previous salts of the buckets rotated within {@link SaltSnapshot#PREVIOUS_ID_WINDOW} of the
 * snapshot's latest rotation, each derived the first time a v3 map answer reads it and then kept.
 *
 * <p>Design note. A v3 map answer gives, for an identifier in a bucket rotated within the window,
 * its id under the bucket's previous salt; deriving that salt on every read cost one SHA-256 and
 * two small arrays per such identifier (about a quarter of them under the default rotation). The
 * buckets kept are those whose salt took effect after the latest effective time in the snapshot
 * minus the window: a request's clock is normally past that latest time, so every bucket it finds
 * within the window is among them; one that is not (a clock behind the latest rotation) is derived
 * as before by the caller. Memory: {@code slots}, one int per bucket (4 MiB for 2^20 buckets), and
 * {@value #RECORD_BYTES} bytes per bucket kept; under the default daily rotation of 1/365, 90 days
 * keep about 24.7 % of the buckets, so about 12 bytes per bucket in all (12 MiB for 2^20), and at
 * most 37 bytes per bucket if every bucket was rotated within 90 days. None of it when no bucket
 * was. A new snapshot (a rotation) starts a new table, derived again as it is read.
 *
 * <p>Publication as in {@link BucketRecords}: a salt is valid once its flag is set (release after
 * the bytes, acquire before reading them); two threads deriving one salt write the same bytes.
 * Thread-safe.
 */
final class PreviousSalts {
  private static final int SALT_BYTES = SaltDerivation.SALT_BYTES;
  static final int RECORD_BYTES = SALT_BYTES + 1;
  private static final VarHandle FLAG = MethodHandles.arrayElementVarHandle(byte[].class);
  private static final PreviousSalts NONE = new PreviousSalts(null, new byte[0], null);

  /** Per bucket, 1 + its record's number, or 0 when the bucket is not kept; null if none is. */
  private final int[] slots;

  private final byte[] records;
  private final BucketRecords.Deriver previousSalt;

  private PreviousSalts(int[] slots, byte[] records, BucketRecords.Deriver previousSalt) {
    this.slots = slots;
    this.records = records;
    this.previousSalt = previousSalt;
  }

  /**
   * The table for a snapshot's state: {@code rotated} lists the buckets with a generation above 0,
   * whose previous salt {@code previousSalt} derives.
   */
  static PreviousSalts of(
      int bucketCount,
      int[] rotated,
      long[] effectiveMs,
      long windowMs,
      BucketRecords.Deriver previousSalt) {
    if (rotated.length == 0) {
      return NONE;
    }
    long latest = Long.MIN_VALUE;
    for (int bucket : rotated) {
      latest = Math.max(latest, effectiveMs[bucket]);
    }
    long after = latest - windowMs;
    int[] slots = new int[bucketCount];
    int kept = 0;
    for (int bucket : rotated) {
      if (effectiveMs[bucket] > after) {
        slots[bucket] = ++kept;
      }
    }
    return new PreviousSalts(slots, new byte[Math.multiplyExact(kept, RECORD_BYTES)], previousSalt);
  }

  /** The array holding the kept salts; read one at the offset {@link #salt} returns. */
  byte[] records() {
    return records;
  }

  /**
   * The offset in {@link #records()} of {@code bucket}'s previous salt, derived first if needed; -1
   * if this table does not keep it.
   */
  int salt(int bucket) {
    return saltAt(slot(bucket), bucket);
  }

  /** The slot of {@code bucket}: 1 + its record's number, or 0 if this table does not keep it. */
  int slot(int bucket) {
    return slots == null ? 0 : slots[bucket];
  }

  /**
   * As {@link #salt}, for the bucket's {@link #slot} read beforehand (from the bucket's record in
   * {@link BucketRecords}, which a v3 answer reads anyway).
   */
  int saltAt(int slot, int bucket) {
    if (slot == 0) {
      return -1;
    }
    int at = (slot - 1) * RECORD_BYTES;
    if ((byte) FLAG.getAcquire(records, at + SALT_BYTES) == 0) {
      previousSalt.derive(bucket, records, at);
      FLAG.setRelease(records, at + SALT_BYTES, (byte) 1);
    }
    return at;
  }

  /** Bytes this table holds (its slots and records), for the memory figures. */
  long bytes() {
    return (slots == null ? 0L : 4L * slots.length) + records.length;
  }
}
