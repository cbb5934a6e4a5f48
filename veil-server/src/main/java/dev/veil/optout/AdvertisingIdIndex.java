package dev.veil.optout;

import dev.veil.core.crypto.Sha256;
import dev.veil.salt.SaltSnapshot;
import java.util.function.IntConsumer;

/**
 * Opted-out identities by their advertising id under one salt snapshot: names the few first-level
 * hash prefixes that may belong to an advertising id, for {@link OptOutService#statusOf} to
 * confirm.
 *
 * <p>Design note. An advertising id is SHA-256(first-level hash || salt of its bucket), so it
 * changes when its bucket rotates, while opt-outs are stored by first-level hash. Keeping the full
 * first-level hash or advertising id of every record would cost 32 bytes each, the whole budget of
 * docs/spec.md 4. Each record therefore keeps one 64-bit tag: the first 40 bits of its advertising
 * id, then the first 24 bits of its first-level hash. The tags sit in an open-addressing table with
 * linear probing, probed from the advertising-id part, grown by doubling at 3/4 load: 8 bytes per
 * slot, 10.7 to 21.3 bytes per record (13.4 at 10 million). A lookup collects the hash prefix of
 * every tag whose advertising-id part matches; the caller reads the records with that prefix from
 * the store (about one each at 10 million records), recomputes their advertising ids and compares
 * all 32 bytes, so a 40-bit coincidence costs one store read and is never reported. A tag of 0
 * (both parts zero) marks an empty slot and is kept in a flag instead.
 *
 * <p>The table holds the advertising ids of one {@link SaltSnapshot}; after a rotation the owner
 * builds a new one. Not thread-safe: {@link OptOutService} guards it.
 */
final class AdvertisingIdIndex {
  static final int HASH_PREFIX_BYTES = 3;
  private static final int MIN_CAPACITY = 1 << 10;
  private static final long HASH_PREFIX_MASK = (1L << (8 * HASH_PREFIX_BYTES)) - 1;

  private final SaltSnapshot salts;
  private final byte[] advertisingId = new byte[Sha256.BYTES];
  private long[] table;
  private int size;
  private boolean zeroTag;

  /** An empty index for {@code salts}, sized for about {@code expected} records. */
  AdvertisingIdIndex(SaltSnapshot salts, int expected) {
    this.salts = salts;
    int capacity = MIN_CAPACITY;
    while (capacity < (1 << 30) && expected * 4L > capacity * 3L) {
      capacity <<= 1;
    }
    this.table = new long[capacity];
  }

  SaltSnapshot salts() {
    return salts;
  }

  /** Adds the identity with this 32-byte first-level hash (a repeat changes nothing). */
  void add(byte[] firstLevelHash) {
    salts.hashWithSaltInto(firstLevelHash, salts.bucketOf(firstLevelHash), advertisingId, 0);
    long tag = (idPart(advertisingId) << 24) | hashPart(firstLevelHash);
    if (tag == 0) {
      zeroTag = true;
      return;
    }
    if ((size + 1) * 4L > table.length * 3L) {
      table = grown(table);
    }
    if (insert(table, tag)) {
      size++;
    }
  }

  /**
   * Gives {@code sink} the first-level hash prefix ({@link #HASH_PREFIX_BYTES} bytes, big-endian)
   * of every record whose advertising id may be {@code id} (32 bytes); usually none.
   */
  void candidates(byte[] id, IntConsumer sink) {
    long part = idPart(id);
    if (part == 0 && zeroTag) {
      sink.accept(0);
    }
    int mask = table.length - 1;
    for (int i = spread(part) & mask; ; i = (i + 1) & mask) {
      long v = table[i];
      if (v == 0) {
        return;
      }
      if (v >>> 24 == part) {
        sink.accept((int) (v & HASH_PREFIX_MASK));
      }
    }
  }

  int size() {
    return size + (zeroTag ? 1 : 0);
  }

  /** Bytes held by the table (for the memory benchmark). */
  long tableBytes() {
    return (long) table.length * Long.BYTES;
  }

  private static boolean insert(long[] t, long tag) {
    int mask = t.length - 1;
    for (int i = spread(tag >>> 24) & mask; ; i = (i + 1) & mask) {
      long v = t[i];
      if (v == tag) {
        return false;
      }
      if (v == 0) {
        t[i] = tag;
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

  /** The first 40 bits of an advertising id. */
  private static long idPart(byte[] id) {
    long v = 0;
    for (int i = 0; i < 5; i++) {
      v = (v << 8) | (id[i] & 0xff);
    }
    return v;
  }

  private static long hashPart(byte[] firstLevelHash) {
    long v = 0;
    for (int i = 0; i < HASH_PREFIX_BYTES; i++) {
      v = (v << 8) | (firstLevelHash[i] & 0xff);
    }
    return v;
  }

  private static int spread(long idPart) {
    long h = idPart * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
