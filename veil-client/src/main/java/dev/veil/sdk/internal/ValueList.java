package dev.veil.sdk.internal;

import dev.veil.core.text.ByteScan;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Identifier values as UTF-8, back to back in one array: a batch on its way to the server, without
 * an object per value. Tracks a bound of the JSON it makes ({@link #jsonBytesBound()}). Not
 * thread-safe; handed from thread to thread whole.
 */
public final class ValueList {
  private byte[] bytes;
  private int[] ends;
  private int count;
  private int size;

  /**
   * The JSON bound of values {@code [0, boundCount)}; the rest are measured when asked (one scan
   * for all).
   */
  private int jsonBound;

  private int boundCount;

  public ValueList(int expectedCount, int expectedBytes) {
    bytes = new byte[Math.max(16, expectedBytes)];
    ends = new int[Math.max(1, expectedCount)];
  }

  /** A list of {@code values}, encoded as UTF-8. */
  public static ValueList of(Iterable<String> values) {
    ValueList list = new ValueList(16, 256);
    for (String v : values) {
      byte[] b = v.getBytes(StandardCharsets.UTF_8);
      list.add(b, 0, b.length);
    }
    return list;
  }

  public void add(byte[] src, int off, int len) {
    if (size + len > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + len));
    }
    if (count == ends.length) {
      ends = Arrays.copyOf(ends, count * 2);
    }
    System.arraycopy(src, off, bytes, size, len);
    size += len;
    ends[count++] = size;
  }

  /** Adds value {@code i} of {@code other}. */
  public void add(ValueList other, int i) {
    add(other.bytes, other.start(i), other.length(i));
  }

  public int size() {
    return count;
  }

  /**
   * The array holding the values; read it with {@link #start} and {@link #end}, never change it.
   */
  public byte[] bytes() {
    return bytes;
  }

  public int start(int i) {
    return i == 0 ? 0 : ends[i - 1];
  }

  public int end(int i) {
    return ends[i];
  }

  public int length(int i) {
    return end(i) - start(i);
  }

  public String text(int i) {
    return new String(bytes, start(i), length(i), StandardCharsets.UTF_8);
  }

  /** Whether value {@code i} equals {@code other[from, to)}. */
  public boolean equalsAt(int i, byte[] other, int from, int to) {
    return to - from == length(i) && ByteScan.sameBytes(bytes, start(i), other, from, to - from);
  }

  /**
   * Whether a value holds a byte that JSON must escape (a quote, a backslash, a control character).
   */
  public boolean needsEscapes() {
    return jsonBytesBound() != size + 3 * count;
  }

  /**
   * A bound of the bytes these values take in a JSON array: quotes, commas and escapes. Values
   * added since the last call are measured together: one scan of their bytes when none needs an
   * escape (nearly always), rather than one per value.
   */
  public int jsonBytesBound() {
    if (boundCount < count) {
      int from = start(boundCount);
      if (ByteScan.jsonSpecial(bytes, from, size) < 0) {
        jsonBound += size - from + 3 * (count - boundCount);
      } else {
        for (int i = boundCount; i < count; i++) {
          jsonBound += jsonBytesBound(bytes, start(i), length(i));
        }
      }
      boundCount = count;
    }
    return jsonBound;
  }

  /** A bound of the bytes one value (UTF-8) takes in a JSON array: escapes, quotes and comma. */
  public static int jsonBytesBound(byte[] value, int off, int len) {
    int n = len + 3;
    if (ByteScan.jsonSpecial(value, off, off + len) < 0) {
      return n; // nearly every value: nothing to escape
    }
    for (int i = off; i < off + len; i++) {
      byte b = value[i];
      if (b >= 0 && (b < 0x20 || b == '"' || b == '\\')) {
        n += 5;
      }
    }
    return n;
  }
}
