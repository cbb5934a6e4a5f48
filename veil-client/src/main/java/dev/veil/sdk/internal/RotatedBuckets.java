package dev.veil.sdk.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The buckets a poll listed (a {@code MappingCache}'s, or {@code veil map --refresh}'s), each with
 * its latest rotation time: a map from bucket id to epoch milliseconds kept in a few arrays (the
 * ids' characters one after another, their ends, hashes and times, and an open-addressed table of
 * indexes). A million buckets take about 45 MB here, against about 120 MB as a {@code
 * HashMap<String, Long>}; a row's bucket is looked up in place, without a string cut from the row.
 * Not thread-safe.
 */
public final class RotatedBuckets {
  /** What {@link #rotatedAtMillis} answers for a bucket not listed. */
  public static final long ABSENT = Long.MIN_VALUE;

  private char[] chars = new char[1 << 10];
  private int charsUsed;

  /**
   * Per bucket, in the order added: where its id ends in {@link #chars} (it starts where the
   * previous ends).
   */
  private int[] ends = new int[64];

  private long[] millis = new long[64];

  /** Per bucket: its id's hash, compared before its characters (which are elsewhere in memory). */
  private int[] hashes = new int[64];

  private int size;

  /**
   * Bucket index + 1 per slot; 0 is an empty slot. Its length is a power of two, at most half full.
   */
  private int[] table = new int[128];

  public int size() {
    return size;
  }

  /** How many buckets were listed with a rotation time at or after {@code fromMillis}. */
  public int countAtOrAfter(long fromMillis) {
    int count = 0;
    for (int index = 0; index < size; index++) {
      if (millis[index] >= fromMillis) {
        count++;
      }
    }
    return count;
  }

  /** Forgets every bucket (a retried poll starts again from its first). */
  public void clear() {
    Arrays.fill(table, 0);
    size = 0;
    charsUsed = 0;
  }

  /**
   * Records that bucket {@code id} rotated at {@code atMillis}; of several times, the latest stays.
   */
  public void merge(String id, long atMillis) {
    int hash = hash(id, 0, id.length());
    int slot = slotOf(hash, id, 0, id.length());
    int index = table[slot] - 1;
    if (index >= 0) {
      millis[index] = Math.max(millis[index], atMillis);
      return;
    }
    if (size == ends.length) {
      ends = Arrays.copyOf(ends, size * 2);
      millis = Arrays.copyOf(millis, size * 2);
      hashes = Arrays.copyOf(hashes, size * 2);
    }
    if (charsUsed + id.length() > chars.length) {
      chars = Arrays.copyOf(chars, Math.max(chars.length * 2, charsUsed + id.length()));
    }
    id.getChars(0, id.length(), chars, charsUsed);
    charsUsed += id.length();
    ends[size] = charsUsed;
    millis[size] = atMillis;
    hashes[size] = hash;
    table[slot] = ++size;
    if (size * 2 > table.length) {
      rehash();
    }
  }

  /** The rotation time of bucket {@code id}, or {@link #ABSENT}. */
  public long rotatedAtMillis(String id) {
    return rotatedAtMillis(id, 0, id.length());
  }

  /** The rotation time of the bucket whose id is {@code text[from, to)}, or {@link #ABSENT}. */
  public long rotatedAtMillis(CharSequence text, int from, int to) {
    int index = table[slotOf(hash(text, from, to), text, from, to)] - 1;
    return index < 0 ? ABSENT : millis[index];
  }

  /**
   * The rotation time of the bucket whose id is the UTF-8 text {@code utf8[from, to)}, or {@link
   * #ABSENT}: an ASCII id (as bucket ids are) is looked up in place.
   */
  public long rotatedAtMillis(byte[] utf8, int from, int to) {
    for (int i = from; i < to; i++) {
      if (utf8[i] < 0) {
        return rotatedAtMillis(new String(utf8, from, to - from, StandardCharsets.UTF_8));
      }
    }
    return rotatedAtMillis(new AsciiChars(utf8), from, to);
  }

  /** ASCII bytes seen as the characters they encode. */
  private static final class AsciiChars implements CharSequence {
    private final byte[] bytes;

    AsciiChars(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public int length() {
      return bytes.length;
    }

    @Override
    public char charAt(int index) {
      return (char) bytes[index];
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return new String(bytes, start, end - start, StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }
  }

  /** The slot that holds the id {@code text[from, to)}, or the empty slot where it would go. */
  private int slotOf(int hash, CharSequence text, int from, int to) {
    int mask = table.length - 1;
    for (int slot = hash & mask; ; slot = (slot + 1) & mask) {
      int index = table[slot] - 1;
      if (index < 0 || (hashes[index] == hash && sameId(index, text, from, to))) {
        return slot;
      }
    }
  }

  private boolean sameId(int index, CharSequence text, int from, int to) {
    int start = index == 0 ? 0 : ends[index - 1];
    if (ends[index] - start != to - from) {
      return false;
    }
    for (int i = 0; i < to - from; i++) {
      if (chars[start + i] != text.charAt(from + i)) {
        return false;
      }
    }
    return true;
  }

  private static int hash(CharSequence text, int from, int to) {
    int h = 0;
    for (int i = from; i < to; i++) {
      h = 31 * h + text.charAt(i);
    }
    return spread(h);
  }

  /**
   * Mixes every bit of a string hash into the low ones the table uses (MurmurHash3's finalizer):
   * ids that differ in a character or two, as numbered ones do, would otherwise fill neighbouring
   * slots and make long runs for linear probing.
   */
  private static int spread(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }

  private void rehash() {
    table = new int[table.length * 2];
    int mask = table.length - 1;
    for (int index = 0; index < size; index++) {
      int slot = hashes[index] & mask;
      while (table[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      table[slot] = index + 1;
    }
  }
}
