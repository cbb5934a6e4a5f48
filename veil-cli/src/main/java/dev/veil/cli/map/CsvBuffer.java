package dev.veil.cli.map;

import dev.veil.core.text.ByteScan;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * CSV rows built in a growing byte array: a field is copied as it is when it holds no comma, quote,
 * CR or LF (checked eight bytes at a time), and quoted otherwise ({@link Csv#field}).
 */
final class CsvBuffer {
  private byte[] bytes;
  private int length;

  CsvBuffer(int capacity) {
    bytes = new byte[Math.max(16, capacity)];
  }

  /**
   * A buffer that writes over {@code reused} (no longer read by anyone else) while it is large
   * enough.
   */
  CsvBuffer(byte[] reused) {
    bytes = reused;
  }

  /** The UTF-8 field {@code [off, off + len)} of {@code b}. */
  void field(byte[] b, int off, int len) {
    room(len);
    int end = ByteScan.copyIfPlainCsv(b, off, len, bytes, length);
    if (end >= 0) {
      length = end;
    } else {
      text(Csv.field(new String(b, off, len, StandardCharsets.UTF_8)));
    }
  }

  /** Text written as it is (the caller quotes it if needed). */
  void text(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    raw(b, 0, b.length);
  }

  void raw(byte[] b, int off, int len) {
    if (len == 0) {
      return;
    }
    room(len);
    System.arraycopy(b, off, bytes, length, len);
    length += len;
  }

  void comma() {
    room(1);
    bytes[length++] = ',';
  }

  void newline() {
    room(1);
    bytes[length++] = '\n';
  }

  byte[] bytes() {
    return bytes;
  }

  int length() {
    return length;
  }

  private void room(int more) {
    if (length + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, length + more));
    }
  }
}
