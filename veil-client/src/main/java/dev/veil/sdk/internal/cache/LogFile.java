package dev.veil.sdk.internal.cache;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The mapping cache's file: an 8-byte header ({@code VEILMC1\n}), then frames appended one after
 * the other and never changed in place. A frame is {@code length:u32 crc:u32 payload}, big-endian,
 * where {@code crc} is the CRC32C of the length bytes and the payload (1 to {@link #MAX_FRAME}
 * bytes of {@link Records}).
 *
 * <h2>Design note: crash safety</h2>
 *
 * <p>Every prefix of the frame sequence is a consistent state of the cache (a frame only refers to
 * entries added by earlier frames), and a frame is applied whole or not at all. A write is
 * acknowledged to its caller only after {@link #syncTo} has forced the file to disk up to its end.
 * Appending never leaves more than {@link #MAX_UNSYNCED} bytes unforced: beyond that, an append
 * forces first. A crash (SIGKILL, power loss) can therefore only damage frames after the last
 * acknowledged one, which all lie within the last {@code MAX_UNSYNCED} bytes of the file.
 *
 * <p>{@link #open} reads the frames in order and stops at the first that is incomplete, too long or
 * fails its CRC. If that point lies within the last {@code MAX_UNSYNCED} bytes, the rest is an
 * unacknowledged tail (a torn write): it is cut off and the file forced. If it lies further back,
 * the damage cannot come from a crash, and the file is reported corrupt rather than shortened.
 *
 * <p>The caller holds a {@link CacheLock}, so no one else appends. Files are created with mode
 * 0600: they hold personal data. Thread-safe: appends are serialized, {@link #syncTo} from several
 * threads shares one force (group commit), reads are positional. Writes and forces go through a
 * {@code RandomAccessFile}, which an interrupted thread does not close (a {@code FileChannel}
 * would, for every user of the cache).
 */
final class LogFile implements AutoCloseable {
  static final byte[] MAGIC = "VEILMC1\n".getBytes(StandardCharsets.US_ASCII);
  static final int HEADER = MAGIC.length;
  static final int MAX_FRAME = 16 << 20;
  static final long MAX_UNSYNCED = 64L << 20;
  private static final byte[] SQLITE_MAGIC =
      "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

  /** Receives each valid frame's payload while the file is opened. */
  interface FrameVisitor {
    /**
     * Receives one record.
     *
     * @param position the payload's offset in the file (records' positions are relative to it)
     * @param payload bytes {@code [offset, offset + length)}; valid during the call only
     */
    void frame(long position, byte[] payload, int offset, int length) throws IOException;
  }

  private final Path path;

  /** Writes and syncs: a {@code RandomAccessFile}'s are not interruptible, unlike a channel's. */
  private final RandomAccessFile writer;

  /** Positional reads; reopened if an interrupted reader closed it (reads have no side effects). */
  private volatile FileChannel reader;

  private volatile boolean closed;
  private final Object appendLock = new Object();
  private final Object syncLock = new Object();
  private volatile long end;
  private final AtomicLong synced = new AtomicLong();
  private volatile IOException failure;
  private long truncatedBytes;

  private LogFile(Path path, RandomAccessFile writer, FileChannel reader) {
    this.path = path;
    this.writer = writer;
    this.reader = reader;
  }

  /**
   * Opens (or creates) the file, hands every valid frame to {@code visitor} in order and cuts off a
   * torn tail.
   *
   * @throws IOException if the file is not a mapping cache (or one of another format), or is
   *     damaged before its tail
   */
  static LogFile open(Path path, FrameVisitor visitor) throws IOException {
    return open(path, visitor, MAX_UNSYNCED);
  }

  /** Tests: a smaller bound of a torn tail (damage further back is reported as such). */
  static LogFile open(Path path, FrameVisitor visitor, long maxTornTail) throws IOException {
    boolean created = createPrivately(path);
    RandomAccessFile writer = new RandomAccessFile(path.toFile(), "rw");
    LogFile log;
    try {
      log = new LogFile(path, writer, FileChannel.open(path, StandardOpenOption.READ));
    } catch (IOException | RuntimeException e) {
      writer.close();
      throw e;
    }
    try {
      if (created) {
        syncDirectory(path);
      }
      log.recover(visitor, maxTornTail);
      return log;
    } catch (IOException | RuntimeException e) {
      log.close();
      throw e;
    }
  }

  private void recover(FrameVisitor visitor, long maxTornTail) throws IOException {
    long size = writer.length();
    if (!checkHeader(size)) {
      writer.setLength(0);
      writer.seek(0);
      writer.write(MAGIC);
      writer.getFD().sync();
      end = HEADER;
      synced.set(HEADER);
      return;
    }
    long pos = HEADER;
    byte[] head = new byte[Frame.HEAD];
    byte[] payload = new byte[64 * 1024];
    CRC32C crc = new CRC32C();
    while (pos < size) {
      if (size - pos < Frame.HEAD || !readFully(head, pos)) {
        break;
      }
      int length = Frame.readInt(head, 0);
      if (length <= 0 || length > MAX_FRAME || pos + Frame.HEAD + length > size) {
        break;
      }
      if (payload.length < length) {
        payload = new byte[Math.max(length, payload.length * 2)];
      }
      if (!readFully(payload, 0, length, pos + Frame.HEAD)) {
        break;
      }
      crc.reset();
      crc.update(head, 0, 4);
      crc.update(payload, 0, length);
      if ((int) crc.getValue() != Frame.readInt(head, 4)) {
        break;
      }
      visitor.frame(pos + Frame.HEAD, payload, 0, length);
      pos += Frame.HEAD + length;
    }
    if (pos < size) {
      if (size - pos > maxTornTail) {
        throw new IOException(
            "mapping cache "
                + path
                + " is damaged at byte "
                + pos
                + " of "
                + size
                + ", before the part a crash can leave incomplete; restore it from a backup or map"
                + " into a new file");
      }
      truncatedBytes = size - pos;
      writer.setLength(pos);
      writer.getFD().sync();
    }
    end = pos;
    synced.set(pos);
  }

  /** True if the file has a valid header; false if it is new or its creation was cut short. */
  private boolean checkHeader(long size) throws IOException {
    byte[] header = new byte[(int) Math.min(size, SQLITE_MAGIC.length)];
    if (!readFully(header, 0)) {
      throw new IOException("cannot read " + path);
    }
    if (header.length == SQLITE_MAGIC.length && Arrays.equals(header, SQLITE_MAGIC)) {
      throw new IOException(
          "mapping cache "
              + path
              + " was written by an earlier version of the client (SQLite);"
              + " map into a new file");
    }
    if (size < HEADER) {
      if (Arrays.equals(header, 0, header.length, MAGIC, 0, header.length)) {
        return false; // empty, or the header was being written when the process died
      }
      throw new IOException(path + " is not a Veil mapping cache");
    }
    if (!Arrays.equals(header, 0, HEADER, MAGIC, 0, HEADER)) {
      throw new IOException(path + " is not a Veil mapping cache (or one of a newer version)");
    }
    return true;
  }

  /** Bytes of an incomplete tail cut off when the file was opened (0 if none). */
  long truncatedBytes() {
    return truncatedBytes;
  }

  Path path() {
    return path;
  }

  /** Where the next frame will go; also the file's length as far as this process wrote it. */
  long end() {
    return end;
  }

  /**
   * Writes a sealed frame at the end and returns the file position of its payload. The frame is
   * visible to {@link #read} at once and durable after {@link #syncTo}{@code (end())}.
   *
   * @throws IOException if it cannot be written; the file is then unusable until reopened
   */
  long append(ByteBuffer frame) throws IOException {
    checkUsable();
    int size = frame.remaining();
    if (size - Frame.HEAD > MAX_FRAME) {
      throw new IllegalArgumentException("frame of " + size + " bytes exceeds " + MAX_FRAME);
    }
    synchronized (appendLock) {
      try {
        long at = end;
        if (at + size - synced.get() > MAX_UNSYNCED) {
          writer.getFD().sync();
          synced.accumulateAndGet(at, Math::max);
        }
        writer.seek(at);
        writer.write(frame.array(), frame.arrayOffset() + frame.position(), size);
        end = at + size;
        return at + Frame.HEAD;
      } catch (IOException e) {
        failure = e;
        throw e;
      }
    }
  }

  /**
   * Returns once every frame that ends at or before {@code position} is on disk. Callers waiting at
   * the same time share one force.
   */
  void syncTo(long position) throws IOException {
    checkUsable();
    if (synced.get() >= position) {
      return;
    }
    synchronized (syncLock) {
      if (synced.get() >= position) {
        return;
      }
      long target = end;
      try {
        writer.getFD().sync();
      } catch (IOException e) {
        failure = e;
        throw e;
      }
      synced.accumulateAndGet(target, Math::max);
    }
  }

  /**
   * Reads up to {@code dst.remaining()} bytes at {@code position}; returns how many (-1 at the
   * end).
   */
  int read(ByteBuffer dst, long position) throws IOException {
    for (int attempt = 1; ; attempt++) {
      FileChannel channel = reader;
      try {
        return channel.read(dst, position);
      } catch (ClosedByInterruptException interrupted) {
        reopenReader(channel);
        throw interrupted; // this thread was interrupted; others read on
      } catch (ClosedChannelException closedByOther) {
        if (closed || attempt > 1) {
          throw closedByOther;
        }
        reopenReader(channel); // another reader was interrupted: read again
      }
    }
  }

  private synchronized void reopenReader(FileChannel broken) throws IOException {
    if (reader == broken && !closed) {
      reader = FileChannel.open(path, StandardOpenOption.READ);
    }
  }

  private void checkUsable() throws IOException {
    IOException failed = failure;
    if (failed != null) {
      throw new IOException(
          "mapping cache " + path + " failed to write earlier; reopen it", failed);
    }
  }

  private boolean readFully(byte[] b, long position) throws IOException {
    return readFully(b, 0, b.length, position);
  }

  private boolean readFully(byte[] b, int off, int len, long position) throws IOException {
    ByteBuffer dst = ByteBuffer.wrap(b, off, len);
    while (dst.hasRemaining()) {
      if (read(dst, position + dst.position() - off) < 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    closed = true;
    try (RandomAccessFile w = writer;
        FileChannel r = reader) {
      // both closed, the first failure thrown
    }
  }

  /** Creates {@code file} with mode 0600 if it does not exist; true if it did not. */
  static boolean createPrivately(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      return true;
    } catch (FileAlreadyExistsException exists) {
      return false;
    } catch (UnsupportedOperationException notPosix) {
      try {
        Files.createFile(file);
        return true;
      } catch (FileAlreadyExistsException exists) {
        return false;
      }
    }
  }

  /**
   * Forces the directory entry of {@code file} (a new or renamed file) to disk, where supported.
   */
  static void syncDirectory(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent == null) {
      return;
    }
    try (FileChannel dir = FileChannel.open(parent, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException notSupported) {
      // Some systems (Windows) cannot open a directory; their rename and create are durable without
      // it.
      if (System.getProperty("os.name", "").startsWith("Windows")) {
        return;
      }
      throw notSupported;
    }
  }
}
