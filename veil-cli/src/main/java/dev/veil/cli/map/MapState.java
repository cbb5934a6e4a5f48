package dev.veil.cli.map;

import dev.veil.sdk.internal.FileLocks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

/**
 * {@code veil map}'s record of an output's progress ({@code <out>.veil-state}): which input the
 * output belongs to, how far the output files are known to be on disk, and when their rows were
 * mapped. The output files themselves hold the mappings; this file holds a few records per second
 * of mapping.
 *
 * <p>The file starts with a line of its own ({@value #MAGIC_TEXT}, so that another file named by
 * mistake is refused, never cut), then records are appended in frames (payload length, CRC-32C of
 * the payload, payload) and each is forced to disk before the call returns. Opening reads every
 * whole frame and cuts the file after the last one, so a record being written when the process died
 * is as if never begun. The records:
 *
 * <ul>
 *   <li>{@code INPUT}: a new import of the input described (path, size, time and the options that
 *       decide what is read); it starts the file anew.
 *   <li>{@code CHECKPOINT}: the input's lines read, and the bytes and rows of both output files,
 *       all forced to disk before the record; and the time the first request of the rows since the
 *       previous checkpoint left (a row was mapped with a salt of that time or later).
 *   <li>{@code DONE}: the import is complete; its temporary output files are whole and are renamed
 *       into place after this record (a run that finds them still there finishes the renames).
 *   <li>{@code REFRESHED}: a refresh wrote the output files anew to their temporary files, whole
 *       and forced; they are renamed into place after this record, and every row is then mapped
 *       with the salts of the given time or later.
 *   <li>{@code INSTALLED}: the temporary files of the last {@code DONE} or {@code REFRESHED} are in
 *       place. Until this record, a run finishes their renames before anything else ({@link
 *       #renamesPending}); after it, temporary files beside the output are a refresh that stopped
 *       before its {@code REFRESHED} and are never renamed.
 * </ul>
 *
 * <p>The file is locked while open, so two runs never share an output. Not thread-safe: one thread
 * writes.
 */
final class MapState implements AutoCloseable {
  private static final byte INPUT = 1;
  private static final byte CHECKPOINT = 2;
  private static final byte DONE = 3;
  private static final byte REFRESHED = 4;
  private static final byte INSTALLED = 5;
  private static final int HEAD = 8;
  private static final String MAGIC_TEXT = "veil map state 1";
  private static final byte[] MAGIC = (MAGIC_TEXT + "\n").getBytes(StandardCharsets.US_ASCII);

  /** Largest payload read back: a longer length field means a torn or foreign file. */
  private static final int MAX_PAYLOAD = 1 << 16;

  /** How far the output files are known to be on disk. */
  record Checkpoint(
      long lines,
      long bytes,
      long rows,
      long rejectedBytes,
      long rejectedRows,
      long mappedAtMillis) {
    static final Checkpoint NONE = new Checkpoint(0, 0, 0, 0, 0, Long.MAX_VALUE);
  }

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;
  private final CRC32C crc = new CRC32C();
  private long end;
  private String input;
  private Checkpoint last = Checkpoint.NONE;

  /**
   * Per checkpoint since INPUT: the rows written up to it, and the mapping time of the rows since
   * the one before.
   */
  private long[] segmentRows = new long[16];

  private long[] segmentMillis = new long[16];
  private int segments;
  private boolean done;
  private boolean installed;
  private long refreshedMillis = -1;

  private MapState(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Opens (or creates) the state file and reads it.
   *
   * @throws IOException if it cannot be read or written, or another run has it open
   */
  static MapState open(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock = FileLocks.exclusive(channel, file + " is in use by another veil map");
    MapState state = new MapState(file, channel, lock);
    try {
      state.load();
    } catch (IOException | RuntimeException e) {
      state.close();
      throw e;
    }
    return state;
  }

  Path file() {
    return file;
  }

  /** The input of the import this state belongs to, or null if none was begun. */
  String input() {
    return input;
  }

  Checkpoint last() {
    return last;
  }

  /** Whether the import is complete (its output files whole). */
  boolean done() {
    return done;
  }

  /**
   * Whether the temporary files of the last {@code DONE} or {@code REFRESHED} record may still wait
   * to be renamed into place (a run stopped between that record and {@link #markInstalled}).
   */
  boolean renamesPending() {
    return done && !installed;
  }

  /** The time every row is known to be mapped at or after, set by the last refresh. */
  OptionalLong refreshedMillis() {
    return refreshedMillis < 0 ? OptionalLong.empty() : OptionalLong.of(refreshedMillis);
  }

  /**
   * When row {@code row} (0-based, in output order) was mapped at the earliest: the last refresh's
   * time, else the time of the segment of the import it was written in.
   */
  long mappedAtMillis(long row) {
    if (refreshedMillis >= 0) {
      return refreshedMillis;
    }
    int i = Arrays.binarySearch(segmentRows, 0, segments, row + 1);
    int segment = i >= 0 ? i : -i - 1;
    if (segment >= segments) {
      throw new IllegalStateException("row " + row + " is past the last checkpoint");
    }
    // Several checkpoints can end at the same row count; the first of them wrote the row.
    while (segment > 0 && segmentRows[segment - 1] == segmentRows[segment]) {
      segment--;
    }
    return segmentMillis[segment];
  }

  /** The earliest mapping time of any row. */
  long oldestMappedAtMillis() {
    if (refreshedMillis >= 0) {
      return refreshedMillis;
    }
    long oldest = Long.MAX_VALUE;
    for (int i = 0; i < segments; i++) {
      oldest = Math.min(oldest, segmentMillis[i]);
    }
    return oldest;
  }

  /** Starts the file anew for an import of {@code input}. */
  void begin(String input) throws IOException {
    channel.truncate(0);
    ByteBuffer magic = ByteBuffer.wrap(MAGIC);
    end = 0;
    while (magic.hasRemaining()) {
      end += channel.write(magic, end);
    }
    reset();
    byte[] text = input.getBytes(StandardCharsets.UTF_8);
    ByteBuffer payload = ByteBuffer.allocate(1 + text.length).put(INPUT).put(text);
    append(payload);
    this.input = input;
  }

  void checkpoint(Checkpoint c) throws IOException {
    append(
        ByteBuffer.allocate(1 + 6 * 8)
            .put(CHECKPOINT)
            .putLong(c.lines())
            .putLong(c.bytes())
            .putLong(c.rows())
            .putLong(c.rejectedBytes())
            .putLong(c.rejectedRows())
            .putLong(c.mappedAtMillis()));
    applyCheckpoint(c);
  }

  void markDone() throws IOException {
    append(ByteBuffer.allocate(1).put(DONE));
    done = true;
    installed = false;
  }

  /**
   * Records a refresh whose new output files are whole in their temporary files (forced): {@code
   * rows} and {@code rejectedRows} in them. They are to be renamed into place next.
   */
  void refreshed(long pollMillis, long rows, long rejectedRows) throws IOException {
    append(
        ByteBuffer.allocate(1 + 3 * 8)
            .put(REFRESHED)
            .putLong(pollMillis)
            .putLong(rows)
            .putLong(rejectedRows));
    applyRefreshed(pollMillis, rows, rejectedRows);
  }

  /**
   * Records that the temporary files of the last {@code DONE} or {@code REFRESHED} are in place.
   */
  void markInstalled() throws IOException {
    append(ByteBuffer.allocate(1).put(INSTALLED));
    installed = true;
  }

  private void applyRefreshed(long pollMillis, long rows, long rejectedRows) {
    refreshedMillis = pollMillis;
    last =
        new Checkpoint(
            last.lines(), last.bytes(), rows, last.rejectedBytes(), rejectedRows, pollMillis);
    installed = false;
  }

  private void reset() {
    input = null;
    last = Checkpoint.NONE;
    segments = 0;
    done = false;
    installed = false;
    refreshedMillis = -1;
  }

  private void applyCheckpoint(Checkpoint c) {
    if (segments == segmentRows.length) {
      segmentRows = Arrays.copyOf(segmentRows, segments * 2);
      segmentMillis = Arrays.copyOf(segmentMillis, segments * 2);
    }
    segmentRows[segments] = c.rows();
    segmentMillis[segments++] = c.mappedAtMillis();
    last = c;
  }

  private void append(ByteBuffer payload) throws IOException {
    payload.flip();
    crc.reset();
    crc.update(payload.duplicate());
    ByteBuffer frame = ByteBuffer.allocate(HEAD + payload.limit());
    frame.putInt(payload.limit()).putInt((int) crc.getValue()).put(payload).flip();
    try {
      while (frame.hasRemaining()) {
        end += channel.write(frame, end);
      }
      channel.force(false);
    } catch (IOException e) {
      throw OutputFiles.failed(file, e);
    }
  }

  private void load() throws IOException {
    long size = channel.size();
    if (size == 0) {
      return; // new: begin() writes the first line
    }
    ByteBuffer magic = ByteBuffer.allocate(MAGIC.length);
    if (size < MAGIC.length || !readAll(magic, 0) || !Arrays.equals(magic.array(), MAGIC)) {
      throw new IOException(
          file + " is not a veil map state file (name another with --cache, or remove it)");
    }
    ByteBuffer head = ByteBuffer.allocate(HEAD);
    long at = MAGIC.length;
    while (at + HEAD <= size) {
      head.clear();
      readFully(head, at);
      int length = head.getInt(0);
      if (length < 1 || length > MAX_PAYLOAD || at + HEAD + length > size) {
        break;
      }
      ByteBuffer payload = ByteBuffer.allocate(length);
      readFully(payload, at + HEAD);
      crc.reset();
      crc.update(payload.array(), 0, length);
      if ((int) crc.getValue() != head.getInt(4) || !apply(payload.flip())) {
        break;
      }
      at += HEAD + length;
    }
    end = at;
    if (size > at) {
      channel.truncate(at); // a torn or unreadable tail: the records before it stand
      channel.force(false);
    }
  }

  /** Applies one record read back; false if it is not one this version writes. */
  private boolean apply(ByteBuffer p) {
    byte type = p.get();
    switch (type) {
      case INPUT -> {
        reset();
        input = StandardCharsets.UTF_8.decode(p).toString();
        return true;
      }
      case CHECKPOINT -> {
        if (p.remaining() != 6 * 8 || input == null) {
          return false;
        }
        applyCheckpoint(
            new Checkpoint(
                p.getLong(), p.getLong(), p.getLong(), p.getLong(), p.getLong(), p.getLong()));
        return true;
      }
      case DONE -> {
        if (input == null) {
          return false;
        }
        done = true;
        installed = false;
        return true;
      }
      case REFRESHED -> {
        if (p.remaining() != 3 * 8 || !done) {
          return false;
        }
        applyRefreshed(p.getLong(), p.getLong(), p.getLong());
        return true;
      }
      case INSTALLED -> {
        if (p.remaining() != 0 || !done) {
          return false;
        }
        installed = true;
        return true;
      }
      default -> {
        return false;
      }
    }
  }

  /** Reads {@code buffer} full from {@code position}; false if the file ends first. */
  private boolean readAll(ByteBuffer buffer, long position) throws IOException {
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        return false;
      }
    }
    return true;
  }

  private void readFully(ByteBuffer buffer, long position) throws IOException {
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new IOException("unexpected end of " + file);
      }
    }
  }

  /**
   * Closes the file; one that never got a record (a refresh with nothing to refresh) is removed.
   */
  @Override
  public void close() throws IOException {
    boolean empty = channel.isOpen() && channel.size() == 0;
    try {
      if (empty) {
        java.nio.file.Files.deleteIfExists(file); // while still locked: no run can have begun it
      }
      lock.release();
    } finally {
      channel.close();
    }
  }
}
