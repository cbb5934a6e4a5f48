package dev.veil.sdk.internal.cache;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads records at given positions of a {@link LogFile} through a few cached windows of the file,
 * so that walking records in roughly ascending order (a batch of entries, an export) costs one read
 * per window rather than one per record. Several windows serve interleaved walks: entries' {@code
 * ADD} records and their {@code MAP} records lie in different parts of the file. Not thread-safe:
 * one per walk.
 */
final class LogReader {
  private static final int WINDOW = 64 * 1024;

  private final LogFile file;
  private final byte[][] data;
  private final long[] start;
  private final int[] length;
  private final long[] lastUse;
  private long clock;

  /** Handed out by {@link #record}: one object per reader, not per record. */
  private final Records.Cursor cursor = new Records.Cursor(null, 0, 0);

  LogReader(LogFile file, int windows) {
    this.file = file;
    this.data = new byte[windows][WINDOW];
    this.start = new long[windows];
    this.length = new int[windows];
    this.lastUse = new long[windows];
  }

  /**
   * Makes the whole record at {@code position} readable and returns a cursor on it (its first byte
   * is the record type). The cursor is valid until the next call (it is the same object each time).
   *
   * @throws IOException if the file cannot be read or holds no record there
   */
  Records.Cursor record(long position) throws IOException {
    int w = find(position, 1);
    int off = (int) (position - start[w]);
    int recordLength = Records.length(cursor.at(data[w], off, length[w]), off);
    if (recordLength < 0) {
      w = load(position, Math.max(WINDOW, 16));
      off = 0;
      recordLength = Records.length(cursor.at(data[w], 0, length[w]), 0);
      if (recordLength < 0) {
        w = load(position, LogFile.MAX_FRAME);
        recordLength = Records.length(cursor.at(data[w], 0, length[w]), 0);
        if (recordLength < 0) {
          throw new IOException("mapping cache record at " + position + " is incomplete");
        }
      }
    }
    if (off + recordLength > length[w]) {
      w = load(position, recordLength);
      off = 0;
      if (recordLength > length[w]) {
        throw new IOException("mapping cache record at " + position + " is incomplete");
      }
    }
    return cursor.at(data[w], off, off + recordLength);
  }

  /** A window holding at least {@code minBytes} from {@code position} (or up to the file's end). */
  private int find(long position, int minBytes) throws IOException {
    for (int w = 0; w < data.length; w++) {
      if (length[w] > 0 && position >= start[w] && position + minBytes <= start[w] + length[w]) {
        lastUse[w] = ++clock;
        return w;
      }
    }
    return load(position, minBytes);
  }

  /** Loads the least recently used window with the file from {@code position} on. */
  private int load(long position, int minBytes) throws IOException {
    int victim = 0;
    for (int w = 1; w < data.length; w++) {
      if (lastUse[w] < lastUse[victim]) {
        victim = w;
      }
    }
    if (data[victim].length < minBytes) {
      data[victim] = new byte[minBytes];
    }
    ByteBuffer dst = ByteBuffer.wrap(data[victim]);
    while (dst.hasRemaining()) {
      int n = file.read(dst, position + dst.position());
      if (n < 0) {
        break;
      }
    }
    start[victim] = position;
    length[victim] = dst.position();
    lastUse[victim] = ++clock;
    if (length[victim] == 0) {
      throw new IOException("no mapping cache record at " + position);
    }
    return victim;
  }
}
