package dev.veil.core.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Searches in byte arrays for the bytes that text formats care about, eight bytes at a time: each
 * step reads a {@code long} and tests all eight bytes at once with carry-free arithmetic, so the
 * common case (a run of ordinary bytes) costs a few instructions per eight bytes instead of a
 * branch per byte. Clients and the server scan hundreds of bytes per identifier (lines of input,
 * JSON strings, CSV fields); this is about twice as fast as a byte loop even before the JIT's last
 * tier.
 *
 * <p>Every method looks at bytes {@code [from, to)} and returns the index of the first match, or
 * -1. Thread-safe (no state).
 */
public final class ByteScan {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final long LOWS = 0x7F7F7F7F7F7F7F7FL;

  /** {@link #soleAt}: no {@code @}, or more than one. */
  public static final int NOT_ONE_AT = -1;

  /** {@link #soleAt}: a control character, space or DEL (0x00 to 0x20, 0x7F). */
  public static final int CONTROL_OR_SPACE = -2;

  /** {@link #soleAt}: a byte of 0x80 or above. */
  public static final int NOT_ASCII = -3;

  private ByteScan() {}

  /**
   * A byte that JSON must escape inside a string: {@code "}, {@code \} or a control character
   * (below 0x20).
   */
  public static int jsonSpecial(byte[] b, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long v = (long) LONGS.get(b, i);
      long m = (equal(v, '"') | equal(v, '\\') | below(v, 0x20)) & HIGHS;
      if (m != 0) {
        return i + (Long.numberOfTrailingZeros(m) >>> 3);
      }
    }
    for (; i < to; i++) {
      byte c = b[i];
      if (c == '"' || c == '\\' || (c >= 0 && c < 0x20)) {
        return i;
      }
    }
    return -1;
  }

  /** {@link #jsonSpecial}, or a comma. */
  public static int jsonSpecialOrComma(byte[] b, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long v = (long) LONGS.get(b, i);
      long m = (equal(v, '"') | equal(v, '\\') | equal(v, ',') | below(v, 0x20)) & HIGHS;
      if (m != 0) {
        return i + (Long.numberOfTrailingZeros(m) >>> 3);
      }
    }
    for (; i < to; i++) {
      byte c = b[i];
      if (c == '"' || c == '\\' || c == ',' || (c >= 0 && c < 0x20)) {
        return i;
      }
    }
    return -1;
  }

  /** A byte that makes a CSV field need quotes: {@code ,}, {@code "}, CR or LF. */
  public static int csvSpecial(byte[] b, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long v = (long) LONGS.get(b, i);
      long m = (equal(v, ',') | equal(v, '"') | equal(v, '\n') | equal(v, '\r')) & HIGHS;
      if (m != 0) {
        return i + (Long.numberOfTrailingZeros(m) >>> 3);
      }
    }
    for (; i < to; i++) {
      byte c = b[i];
      if (c == ',' || c == '"' || c == '\n' || c == '\r') {
        return i;
      }
    }
    return -1;
  }

  /**
   * Copies bytes {@code [from, from + length)} of {@code src} to {@code dst} at {@code at} if none
   * of them makes a CSV field need quotes ({@link #csvSpecial}), checking and copying eight at a
   * time; returns {@code at + length}, or -1 (having copied part, maybe) if one does.
   *
   * @throws IndexOutOfBoundsException if a range does not lie within its array
   */
  public static int copyIfPlainCsv(byte[] src, int from, int length, byte[] dst, int at) {
    Objects.checkFromIndexSize(from, length, src.length);
    Objects.checkFromIndexSize(at, length, dst.length);
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      long v = (long) LONGS.get(src, from + i);
      if (((equal(v, ',') | equal(v, '"') | equal(v, '\n') | equal(v, '\r')) & HIGHS) != 0) {
        return -1;
      }
      LONGS.set(dst, at + i, v);
    }
    for (; i < length; i++) {
      byte c = src[from + i];
      if (c == ',' || c == '"' || c == '\n' || c == '\r') {
        return -1;
      }
      dst[at + i] = c;
    }
    return at + length;
  }

  /**
   * Copies bytes {@code [from, from + length)} of {@code src} to {@code dst} at {@code at}, eight
   * at a time, and says whether all of them are ASCII (below 0x80): the check costs the copy
   * nothing more. The bytes are copied either way.
   *
   * @throws IndexOutOfBoundsException if a range does not lie within its array
   */
  public static boolean copyAscii(byte[] src, int from, int length, byte[] dst, int at) {
    Objects.checkFromIndexSize(from, length, src.length);
    Objects.checkFromIndexSize(at, length, dst.length);
    long highs = 0;
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      long v = (long) LONGS.get(src, from + i);
      highs |= v;
      LONGS.set(dst, at + i, v);
    }
    for (; i < length; i++) {
      byte c = src[from + i];
      highs |= c;
      dst[at + i] = c;
    }
    return (highs & HIGHS) == 0;
  }

  /** {@link #lineShape}: the line holds a comma. */
  public static final int COMMA = 1;

  /** {@link #lineShape}: the line holds a double quote. */
  public static final int QUOTE = 2;

  /** {@link #lineShape}: the line holds a byte that is not ASCII. */
  public static final int NON_ASCII = 4;

  /** {@link #lineShape}: the line holds an {@code @}. */
  public static final int AT = 8;

  /**
   * What a line of a CSV file holds, in one pass: {@link #COMMA}, {@link #QUOTE}, {@link
   * #NON_ASCII} and {@link #AT}, or-ed together (0 for none of them).
   */
  public static int lineShape(byte[] b, int from, int to) {
    long commas = 0;
    long quotes = 0;
    long highs = 0;
    long ats = 0;
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long v = (long) LONGS.get(b, i);
      commas |= equal(v, ',');
      quotes |= equal(v, '"');
      ats |= equal(v, '@');
      highs |= v;
    }
    int shape =
        ((commas & HIGHS) != 0 ? COMMA : 0)
            | ((quotes & HIGHS) != 0 ? QUOTE : 0)
            | ((highs & HIGHS) != 0 ? NON_ASCII : 0)
            | ((ats & HIGHS) != 0 ? AT : 0);
    for (; i < to; i++) {
      byte c = b[i];
      shape |= c == ',' ? COMMA : c == '"' ? QUOTE : c < 0 ? NON_ASCII : c == '@' ? AT : 0;
    }
    return shape;
  }

  /** A line end: CR or LF. */
  public static int lineEnd(byte[] b, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long v = (long) LONGS.get(b, i);
      long m = (equal(v, '\n') | equal(v, '\r')) & HIGHS;
      if (m != 0) {
        return i + (Long.numberOfTrailingZeros(m) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (b[i] == '\n' || b[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  /** The byte {@code c}. */
  public static int indexOf(byte[] b, int from, int to, byte c) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long m = equal((long) LONGS.get(b, i), c & 0xFF) & HIGHS;
      if (m != 0) {
        return i + (Long.numberOfTrailingZeros(m) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (b[i] == c) {
        return i;
      }
    }
    return -1;
  }

  /** A byte that is not ASCII (0x80 or above). */
  public static int nonAscii(byte[] b, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long m = (long) LONGS.get(b, i) & HIGHS;
      if (m != 0) {
        return i + (Long.numberOfTrailingZeros(m) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (b[i] < 0) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether {@code length} bytes of {@code a} from {@code aFrom} equal those of {@code b} from
   * {@code bFrom}, eight at a time: for the short runs compared per identifier (an echoed value, a
   * JSON member name), cheaper than {@code Arrays.equals} before the JIT's last tier.
   *
   * @throws IndexOutOfBoundsException if a range does not lie within its array
   */
  public static boolean sameBytes(byte[] a, int aFrom, byte[] b, int bFrom, int length) {
    Objects.checkFromIndexSize(aFrom, length, a.length);
    Objects.checkFromIndexSize(bFrom, length, b.length);
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      if ((long) LONGS.get(a, aFrom + i) != (long) LONGS.get(b, bFrom + i)) {
        return false;
      }
    }
    if (i < length && length >= 8) {
      // the last eight bytes, overlapping ones already compared
      return (long) LONGS.get(a, aFrom + length - 8) == (long) LONGS.get(b, bFrom + length - 8);
    }
    for (; i < length; i++) {
      if (a[aFrom + i] != b[bFrom + i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The shape of an email address in one pass: the index of the only {@code @} in {@code [from,
   * to)}; otherwise, whichever applies first of {@link #NOT_ASCII} (any byte of 0x80 or above),
   * {@link #CONTROL_OR_SPACE} (any byte from 0x00 to 0x20, or 0x7F) and {@link #NOT_ONE_AT}.
   */
  public static int soleAt(byte[] b, int from, int to) {
    int at = NOT_ONE_AT;
    int ats = 0;
    long highs = 0;
    long bad = 0;
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long v = (long) LONGS.get(b, i);
      highs |= v;
      bad |= below(v, 0x21) | equal(v, 0x7F);
      long x = v ^ (ONES * '@');
      long m = ~(((x & LOWS) + LOWS) | x | LOWS); // exactly the bytes that are '@' (ASCII v)
      if (m != 0) {
        ats += Long.bitCount(m);
        at = i + (Long.numberOfTrailingZeros(m) >>> 3);
      }
    }
    for (; i < to; i++) {
      byte c = b[i];
      highs |= c;
      if (c == '@') {
        ats++;
        at = i;
      } else if (c >= 0 && (c <= ' ' || c == 0x7F)) {
        bad |= HIGHS;
      }
    }
    if ((highs & HIGHS) != 0) {
      return NOT_ASCII;
    }
    if ((bad & HIGHS) != 0) {
      return CONTROL_OR_SPACE;
    }
    return ats == 1 ? at : NOT_ONE_AT;
  }

  /**
   * Per byte of {@code v}, a high bit that is set where the byte equals {@code c}, and possibly
   * also, but only above a byte that equals {@code c}, where it is {@code c ^ 0x01}. The lowest set
   * bit is therefore always exact, which is all the searches here use.
   */
  private static long equal(long v, int c) {
    long x = v ^ (ONES * c);
    return (x - ONES) & ~x;
  }

  /**
   * Per byte of {@code v}, a high bit set where the byte is below {@code n} (n at most 0x80), exact
   * for the lowest such byte; bytes of 0x80 and above (non-ASCII) never match.
   */
  private static long below(long v, int n) {
    return (v - ONES * n) & ~v;
  }
}
