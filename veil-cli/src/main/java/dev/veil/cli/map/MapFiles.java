package dev.veil.cli.map;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The files of one {@code veil map} output: the output itself, the rejected identifiers beside it
 * ({@code <out>.rejected.csv}), the mapping cache that holds the run's progress and the table
 * ({@code <out>.veil-cache} unless {@code --cache} names another), and the lock that keeps a second
 * run off the output ({@code <out>.lock}). Both CSV files are written whole to a temporary file
 * beside them ({@code .tmp}), forced to disk and renamed into place, so neither is ever half
 * written.
 *
 * @param out the output, as given
 * @param cache the mapping cache
 */
record MapFiles(Path out, Path cache) {
  /** The header of the rejected file. */
  static final String REJECTED_HEADER = "identifier,reason\n";

  /** The first line of a state file of the release before the mapping cache. */
  private static final byte[] OLD_STATE_MAGIC =
      "veil map state 1\n".getBytes(StandardCharsets.US_ASCII);

  /** The files of {@code out}, the cache at {@code cache} or, when null, the default. */
  static MapFiles of(Path out, Path cache) {
    return new MapFiles(out, cache != null ? cache : defaultCache(out));
  }

  static Path defaultCache(Path out) {
    return Path.of(out + ".veil-cache");
  }

  Path rejected() {
    return Path.of(out + ".rejected.csv");
  }

  Path lock() {
    return Path.of(out + ".lock");
  }

  /** Where the state of the release before the mapping cache was: {@code <out>.veil-state}. */
  Path oldState() {
    return Path.of(out + ".veil-state");
  }

  /** Where {@code file} is written before it is renamed into place: {@code <file>.tmp}. */
  static Path temporaryFile(Path file) {
    Path absolute = file.toAbsolutePath();
    return absolute.resolveSibling(absolute.getFileName() + ".tmp");
  }

  /** Whether {@code file} is one of the files a run writes (the cache and its lock aside). */
  boolean isWritten(Path file) {
    Path f = file.toAbsolutePath().normalize();
    for (Path written :
        new Path[] {out, temporaryFile(out), rejected(), temporaryFile(rejected()), lock()}) {
      if (written.toAbsolutePath().normalize().equals(f)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The state file of the release before the mapping cache that this output has, or null: {@code
   * <out>.veil-state}, or a {@code --cache} that holds such a state. This release does not read
   * them.
   */
  Path previousReleaseState() throws IOException {
    if (Files.exists(oldState())) {
      return oldState();
    }
    if (Files.isRegularFile(cache)) {
      byte[] head = new byte[OLD_STATE_MAGIC.length];
      int n;
      try (InputStream in = Files.newInputStream(cache)) {
        n = in.readNBytes(head, 0, head.length);
      }
      if (n == head.length && Arrays.equals(head, OLD_STATE_MAGIC)) {
        return cache;
      }
    }
    return null;
  }

  /** Writes a whole file: its content goes to {@code out}, which this flushes and forces. */
  interface Content {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Writes {@code file} anew through {@code <file>.tmp}: {@link #writeTemporary}, then {@link
   * #install}, so that {@code file} is either the old file or the new one, whole, whenever the
   * process stops.
   *
   * @throws FileSystemException naming the file, if writing fails (a full disk)
   */
  static void replace(Path file, Content content) throws IOException {
    writeTemporary(file, content);
    install(file);
  }

  /**
   * Writes {@code content} to {@code <file>.tmp} (anew) and forces it to disk.
   *
   * @throws FileSystemException naming the temporary file, if writing fails (a full disk)
   */
  static void writeTemporary(Path file, Content content) throws IOException {
    Path tmp = temporaryFile(file);
    try (FileOutputStream stream = new FileOutputStream(tmp.toFile());
        OutputStream out = new BufferedOutputStream(stream, 1 << 16)) {
      content.writeTo(out);
      out.flush();
      stream.getFD().sync();
    } catch (IOException e) {
      throw named(tmp, e);
    }
  }

  /** Renames {@code <file>.tmp}, written whole, over {@code file}, and forces the directory. */
  static void install(Path file) throws IOException {
    Files.move(
        temporaryFile(file),
        file,
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    forceDirectory(file);
  }

  /** Removes {@code file} and its temporary file, if there. */
  static void remove(Path file) throws IOException {
    Files.deleteIfExists(temporaryFile(file));
    if (Files.deleteIfExists(file)) {
      forceDirectory(file);
    }
  }

  private static void forceDirectory(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Not every file system can force a directory; the rename itself stands.
    }
  }

  /**
   * A write's failure with the file it was for: the JDK's {@link IOException} for a full disk or a
   * failing device says only {@code No space left on device}, not where.
   */
  static FileSystemException named(Path file, IOException e) {
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
}
