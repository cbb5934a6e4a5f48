package dev.veil.cli.map;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The two files a {@code veil map} import writes: the rows ({@code
 * identifier,advertising_id,bucket_id}) and the rejected identifiers ({@code identifier,reason}),
 * each to a temporary file beside its target ({@code <out>.tmp}, {@code <out>.rejected.csv.tmp})
 * until the import is complete, then renamed into place. The temporary files are the import's
 * progress: a resumed run cuts them back to the last checkpoint and appends. Not thread-safe: one
 * thread writes.
 */
final class OutputFiles implements AutoCloseable {
  static final String HEADER = "identifier,advertising_id,bucket_id\n";
  static final String REJECTED_HEADER = "identifier,reason\n";

  private final Path out;
  private final Path tmp;
  private final Path rejected;
  private final Path rejectedTmp;
  private FileChannel rows;
  private FileChannel rejections;
  private long bytes;
  private long rejectedBytes;

  OutputFiles(Path out) {
    this.out = out.toAbsolutePath();
    this.tmp = temporaryFile(this.out);
    this.rejected = rejectedFile(this.out);
    this.rejectedTmp = temporaryFile(rejected);
  }

  /** Where {@code out} is written until the import is complete: {@code <out>.tmp}. */
  static Path temporaryFile(Path out) {
    Path absolute = out.toAbsolutePath();
    return absolute.resolveSibling(absolute.getFileName() + ".tmp");
  }

  /**
   * The file of the identifiers rejected beside the output {@code out}: {@code <out>.rejected.csv}.
   */
  static Path rejectedFile(Path out) {
    return Path.of(out + ".rejected.csv");
  }

  /**
   * Whether the temporary files hold at least what {@code c} records (so a run can go on from it).
   */
  boolean canResume(MapState.Checkpoint c) throws IOException {
    return c.bytes() > 0
        && Files.isRegularFile(tmp)
        && Files.isRegularFile(rejectedTmp)
        && Files.size(tmp) >= c.bytes()
        && Files.size(rejectedTmp) >= c.rejectedBytes();
  }

  /** What {@link #start} leaves: both headers, no line read, no row. */
  static final MapState.Checkpoint FRESH =
      new MapState.Checkpoint(0, HEADER.length(), 0, REJECTED_HEADER.length(), 0, Long.MAX_VALUE);

  /** Starts both temporary files anew with their headers, forced; returns {@link #FRESH}. */
  MapState.Checkpoint start() throws IOException {
    rows = open(tmp, true);
    rejections = open(rejectedTmp, true);
    bytes = 0;
    rejectedBytes = 0;
    byte[] header = HEADER.getBytes(StandardCharsets.US_ASCII);
    byte[] rejectedHeader = REJECTED_HEADER.getBytes(StandardCharsets.US_ASCII);
    write(header, header.length, rejectedHeader, rejectedHeader.length);
    force();
    return FRESH;
  }

  /** Opens both temporary files cut back to what {@code c} records. */
  void resume(MapState.Checkpoint c) throws IOException {
    rows = open(tmp, false);
    rejections = open(rejectedTmp, false);
    rows.truncate(c.bytes());
    rejections.truncate(c.rejectedBytes());
    force();
    bytes = c.bytes();
    rejectedBytes = c.rejectedBytes();
  }

  void write(byte[] rowBytes, int rowLength, byte[] rejectedRows, int rejectedLength)
      throws IOException {
    bytes += writeAt(rows, tmp, rowBytes, rowLength, bytes);
    rejectedBytes += writeAt(rejections, rejectedTmp, rejectedRows, rejectedLength, rejectedBytes);
  }

  long bytes() {
    return bytes;
  }

  long rejectedBytes() {
    return rejectedBytes;
  }

  /** Forces both files' contents to disk. */
  void force() throws IOException {
    try {
      rows.force(false);
    } catch (IOException e) {
      throw failed(tmp, e);
    }
    try {
      rejections.force(false);
    } catch (IOException e) {
      throw failed(rejectedTmp, e);
    }
  }

  /**
   * A write's failure with the file it was for: the JDK's {@link IOException} for a full disk or a
   * failing device says only {@code No space left on device}, not where.
   */
  static FileSystemException failed(Path file, IOException e) {
    if (e instanceof FileSystemException f) {
      return f;
    }
    FileSystemException named =
        new FileSystemException(
            file.toString(),
            null,
            e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    named.initCause(e);
    return named;
  }

  /**
   * Puts the temporary files of a complete import in place (those still there: a run that stopped
   * between the renames left the rest): the rows over the output, and the rejected identifiers over
   * their file, or, when there are none, no rejected file at all.
   */
  void finishRenames(long rejectedRows) throws IOException {
    close();
    if (Files.exists(rejectedTmp)) {
      if (rejectedRows > 0) {
        Files.move(
            rejectedTmp,
            rejected,
            StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
      } else {
        Files.delete(rejectedTmp);
        Files.deleteIfExists(rejected);
      }
    }
    if (Files.exists(tmp)) {
      Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /**
   * Finishes what a run that stopped after its {@code DONE} or {@code REFRESHED} record left
   * undone: the renames of those temporary files, then the {@code INSTALLED} record. Every run does
   * this first, so that temporary files found later are never taken for a finished write.
   */
  void settle(MapState state) throws IOException {
    if (state.renamesPending()) {
      finishRenames(state.last().rejectedRows());
      state.markInstalled();
    }
  }

  /**
   * Removes the temporary files a refresh that stopped before its {@code REFRESHED} record left.
   */
  void discardTemporaryFiles() throws IOException {
    Files.deleteIfExists(tmp);
    Files.deleteIfExists(rejectedTmp);
  }

  /** Where the rows are written before they are renamed over {@link #out}. */
  Path temporaryOut() {
    return tmp;
  }

  /** Where the rejected identifiers are written before they are renamed over {@link #rejected}. */
  Path temporaryRejected() {
    return rejectedTmp;
  }

  /** Whether the output file is in place. */
  boolean outputExists() {
    return Files.isRegularFile(out);
  }

  Path out() {
    return out;
  }

  Path rejected() {
    return rejected;
  }

  @Override
  public void close() throws IOException {
    try {
      if (rows != null) {
        rows.close();
      }
    } finally {
      rows = null;
      if (rejections != null) {
        rejections.close();
      }
      rejections = null;
    }
  }

  private static FileChannel open(Path file, boolean truncate) throws IOException {
    return truncate
        ? FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)
        : FileChannel.open(file, StandardOpenOption.WRITE);
  }

  private static int writeAt(FileChannel channel, Path file, byte[] b, int length, long position)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(b, 0, length);
    try {
      while (buffer.hasRemaining()) {
        channel.write(buffer, position + buffer.position());
      }
    } catch (IOException e) {
      throw failed(file, e);
    }
    return length;
  }

  /**
   * Whether {@code file} is one of the files a run on {@code out} writes (its state file aside).
   */
  static boolean isWrittenFile(Path out, Path file) {
    Path f = file.toAbsolutePath().normalize();
    Path rejected = rejectedFile(out);
    for (Path written : new Path[] {out, temporaryFile(out), rejected, temporaryFile(rejected)}) {
      if (written.toAbsolutePath().normalize().equals(f)) {
        return true;
      }
    }
    return false;
  }
}
