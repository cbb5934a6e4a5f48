package dev.veil.sdk.internal.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The records of a mapping cache file, inside frames. Integers are unsigned LEB128 varints unless
 * noted; times are 8-byte big-endian epoch milliseconds; text is UTF-8. Entries are numbered by the
 * order of their {@code ADD} records, from 0; a number is never reused.
 *
 * <pre>
 * ADD    1  kind:u8 length value              a new entry (identifier kind code and value)
 * MAP    2  entry mappedAt:i64 length advertisingId length bucketId
 *                                             the entry's current mapping; clears a stale mark
 * STALE  3  count first (delta)*              the entries are stale (bucket rotated after mappedAt)
 * REMOVE 4  entry                             the entry is gone (opted out or invalid)
 * REJECT 5  kind:u8 reason:u8 at:i64 length value
 *                                             an identifier not held, and why
 * META   6  length key length value           a setting (poll times, input checkpoints)
 * MAP3   7  entry mappedAt:i64 refreshFrom:i64 length advertisingId length previousId
 *                                             the entry's current mapping over v3 (previous id
 *                                             empty if none; refresh time in epoch ms); clears a
 *                                             stale mark
 * </pre>
 *
 * <p>{@code MAP3} came after the first files: a client older than it stops at one with "unknown
 * record type 7", and this one reads files without it.
 *
 * <p>New record types need a new file version: a reader stops at a type it does not know.
 */
final class Records {
  static final int ADD = 1;
  static final int MAP = 2;
  static final int STALE = 3;
  static final int REMOVE = 4;
  static final int REJECT = 5;
  static final int META = 6;
  static final int MAP3 = 7;

  private Records() {}

  /**
   * The length of the record at {@code off}, read with {@code c} (at the record's start, limited to
   * the bytes at hand; it is moved), or -1 if those bytes are too few to tell.
   *
   * @throws IOException if the bytes are not a record
   */
  static int length(Cursor c, int off) throws IOException {
    int quick = quickLength(c.b, off, c.limit);
    return quick >= 0 ? quick : parsedLength(c, off);
  }

  /** {@link #length(Cursor, int)} field by field, for every record type. */
  static int parsedLength(Cursor c, int off) throws IOException {
    if (!c.has(1)) {
      return -1;
    }
    int type = c.u8();
    switch (type) {
      case ADD -> {
        return c.has(1) && c.skip(1) && c.hasVarint() ? lengthAfter(c, off, c.varint32()) : -1;
      }
      case MAP, MAP3 -> {
        if (!c.hasVarint()
            || c.varint32() < 0
            || !c.skip(type == MAP3 ? 16 : 8)
            || !c.hasVarint()) {
          return -1;
        }
        int adv = c.varint32();
        return c.skip(adv) && c.hasVarint() ? lengthAfter(c, off, c.varint32()) : -1;
      }
      case STALE -> {
        if (!c.hasVarint()) {
          return -1;
        }
        int count = c.varint32();
        for (int i = 0; i < count; i++) {
          if (!c.hasVarint()) {
            return -1;
          }
          c.varint32();
        }
        return c.pos - off;
      }
      case REMOVE -> {
        if (!c.hasVarint()) {
          return -1;
        }
        c.varint32();
        return c.pos - off;
      }
      case REJECT -> {
        return c.skip(10) && c.hasVarint() ? lengthAfter(c, off, c.varint32()) : -1;
      }
      case META -> {
        if (!c.hasVarint()) {
          return -1;
        }
        int key = c.varint32();
        return c.skip(key) && c.hasVarint() ? lengthAfter(c, off, c.varint32()) : -1;
      }
      default -> throw new IOException("unknown record type " + type + " in the mapping cache");
    }
  }

  /**
   * The length of an {@code ADD} or {@code MAP} record whose lengths fit one varint byte each
   * (nearly every one), read without a cursor; -1 for any other record, or if the bytes do not
   * tell.
   */
  static int quickLength(byte[] b, int off, int limit) {
    if (off + 3 > limit) {
      return -1;
    }
    int type = b[off];
    if (type == ADD) {
      return b[off + 2] >= 0 ? 3 + b[off + 2] : -1;
    }
    if (type != MAP) {
      return -1;
    }
    int p = off + 1;
    int varintEnd = Math.min(limit, p + 5);
    while (p < varintEnd && b[p] < 0) {
      p++; // the entry number's continuation bytes
    }
    if (p == varintEnd) {
      return -1; // cut off, or too long: the general reading decides
    }
    p += 1 + 8; // its last byte, then mapped-at
    if (p >= limit || b[p] < 0) {
      return -1;
    }
    p += 1 + b[p]; // the advertising id
    return p < limit && b[p] >= 0 ? p + 1 + b[p] - off : -1;
  }

  private static int lengthAfter(Cursor c, int off, int trailing) {
    return c.pos - off + trailing;
  }

  /** Reads fields of records; bounds are checked (a frame's CRC has been checked before). */
  static final class Cursor {
    byte[] b;
    int pos;
    int limit;

    Cursor(byte[] b, int pos, int limit) {
      this.b = b;
      this.pos = pos;
      this.limit = limit;
    }

    /**
     * Points this cursor at bytes {@code [pos, limit)} of {@code b}: readers reuse one cursor per
     * read.
     */
    Cursor at(byte[] b, int pos, int limit) {
      this.b = b;
      this.pos = pos;
      this.limit = limit;
      return this;
    }

    boolean has(int n) {
      return n >= 0 && limit - pos >= n;
    }

    boolean skip(int n) {
      if (!has(n)) {
        return false;
      }
      pos += n;
      return true;
    }

    boolean hasVarint() {
      if (pos < limit && b[pos] >= 0) {
        return true; // one byte: nearly every length and entry number below 128
      }
      for (int i = pos; i < limit && i < pos + 5; i++) {
        if ((b[i] & 0x80) == 0) {
          return true;
        }
      }
      return false;
    }

    int u8() {
      return b[pos++] & 0xFF;
    }

    /** A varint of at most 31 bits. */
    int varint32() {
      if (b[pos] >= 0) {
        return b[pos++]; // one byte, the common case
      }
      int value = 0;
      for (int shift = 0; shift < 35; shift += 7) {
        int x = b[pos++];
        value |= (x & 0x7F) << shift;
        if (x >= 0) {
          return value;
        }
      }
      throw new IllegalStateException("varint too long");
    }

    long int64() {
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = v << 8 | (b[pos++] & 0xFF);
      }
      return v;
    }

    String text(int length) {
      String s = new String(b, pos, length, StandardCharsets.UTF_8);
      pos += length;
      return s;
    }

    /** Checks that {@code n} more bytes exist before a field of that length is used. */
    void require(int n) throws IOException {
      if (!has(n)) {
        throw new IOException("record overruns its frame in the mapping cache");
      }
    }
  }
}
