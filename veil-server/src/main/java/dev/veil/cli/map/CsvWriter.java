package dev.veil.cli.map;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/**
 * Writes CSV as UTF-8 into a file through a buffer: fields are quoted only when they hold a comma,
 * quote, CR or LF ({@link Csv#field}). Used for the rejected identifiers (the mappings come from
 * {@link dev.veil.sdk.MappingCache#writeCsv}). Write failures surface as {@link
 * UncheckedIOException} (the rows come from a callback that cannot throw {@link IOException}).
 */
final class CsvWriter {
  private final FileChannel out;
  private final byte[] buf = new byte[1 << 16];
  private int size;
  private long drained;

  CsvWriter(FileChannel out) {
    this.out = out;
  }

  /** A field, quoted if needed. */
  void field(String value) {
    text(Csv.field(value));
  }

  void comma() {
    put((byte) ',');
  }

  void newline() {
    put((byte) '\n');
  }

  /** Text known to need no quoting. */
  void ascii(String text) {
    text(text);
  }

  private void text(String text) {
    int n = text.length();
    if (size + 3 * n > buf.length) {
      drain();
    }
    if (3 * n > buf.length) {
      write(text.getBytes(StandardCharsets.UTF_8));
      return;
    }
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c >= 0x80) {
        byte[] rest = text.substring(i).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(rest, 0, buf, size, rest.length);
        size += rest.length;
        return;
      }
      buf[size++] = (byte) c;
    }
  }

  private void put(byte b) {
    if (size == buf.length) {
      drain();
    }
    buf[size++] = b;
  }

  private void write(byte[] bytes) {
    drain();
    try {
      ByteBuffer src = ByteBuffer.wrap(bytes);
      while (src.hasRemaining()) {
        out.write(src);
      }
      drained += bytes.length;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void drain() {
    try {
      ByteBuffer src = ByteBuffer.wrap(buf, 0, size);
      while (src.hasRemaining()) {
        out.write(src);
      }
      drained += size;
      size = 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Bytes handed to the file so far (not counting the buffer). */
  long written() {
    return drained;
  }

  /** Writes what is buffered. */
  void flush() throws IOException {
    try {
      drain();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
