package dev.veil.cli.map;

import dev.veil.sdk.MappingCache;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes {@code veil map}'s output: {@code identifier,advertising_id,bucket_id}, one row per
 * identifier in input order ({@link MappingCache#writeCsv}), and the rejected identifiers beside it
 * ({@code identifier,reason}). Each file is written to a temporary file, forced to disk and renamed
 * over the target, so a reader (or a killed run) never sees half a file. The mappings may be
 * written while the mapping goes on ({@link #open}, {@link #stream}, {@link #commit}); the file is
 * then forced on the way (every {@value #FORCE_EVERY_BYTES} bytes, and on a flush once {@value
 * #FORCE_ON_FLUSH_BYTES} bytes wait: the export flushes while it waits for the run, so the file is
 * forced while the run's last answers are stored and forced), and little is left to force at the
 * end.
 */
final class MappingFile implements AutoCloseable {
  private static final long FORCE_EVERY_BYTES = 32L << 20;
  private static final long FORCE_ON_FLUSH_BYTES = 4L << 20;

  private final Path target;
  private final Path tmp;
  private final FileChannel channel;
  private boolean committed;

  private MappingFile(Path target, Path tmp, FileChannel channel) {
    this.target = target;
    this.tmp = tmp;
    this.channel = channel;
  }

  /** Starts a file that replaces {@code out} when committed: a temporary file beside it. */
  static MappingFile open(Path out) throws IOException {
    Path tmp = temporaryFile(out);
    return new MappingFile(out.toAbsolutePath(), tmp, FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING));
  }

  /** Where {@code out} is written until it is committed: {@code <out>.tmp}. */
  static Path temporaryFile(Path out) {
    Path absolute = out.toAbsolutePath();
    return absolute.resolveSibling(absolute.getFileName() + ".tmp");
  }

  /** The file of the identifiers rejected beside the output {@code out}: {@code <out>.rejected.csv}. */
  static Path rejectedFile(Path out) {
    return Path.of(out + ".rejected.csv");
  }

  /** The stream to write the rows to; unbuffered (the writer buffers), forcing as it goes. */
  OutputStream stream() {
    return new OutputStream() {
      private long written;
      private long forcedAt;

      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        ByteBuffer src = ByteBuffer.wrap(b, off, len);
        while (src.hasRemaining()) {
          channel.write(src);
        }
        written += len;
        if (written - forcedAt > FORCE_EVERY_BYTES) {
          force();
        }
      }

      /** Forces what was written, if at least {@value #FORCE_ON_FLUSH_BYTES} bytes wait. */
      @Override
      public void flush() throws IOException {
        if (written - forcedAt >= FORCE_ON_FLUSH_BYTES) {
          force();
        }
      }

      private void force() throws IOException {
        forcedAt = written;
        channel.force(false);
      }
    };
  }

  /** Forces the file to disk and renames it over the target. */
  void commit() throws IOException {
    channel.force(true);
    channel.close();
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    committed = true;
  }

  /** Drops the temporary file unless it was committed. */
  @Override
  public void close() throws IOException {
    if (!committed) {
      channel.close();
      Files.deleteIfExists(tmp);
    }
  }

  /** Writes every mapping of the cache; returns the number of rows. */
  static long writeMappings(MappingCache cache, Path out) throws IOException {
    try (MappingFile file = open(out)) {
      long rows = cache.writeCsv(file.stream());
      file.commit();
      return rows;
    }
  }

  /** Writes the rejections to {@code out} when there are any; returns how many. */
  static long writeRejections(MappingCache cache, Path out) throws IOException {
    long[] count = {0};
    cache.forEachRejection(r -> count[0]++);
    if (count[0] == 0) {
      return 0;
    }
    try (MappingFile file = open(out)) {
      CsvWriter w = new CsvWriter(file.channel);
      w.ascii("identifier,reason\n");
      try {
        cache.forEachRejection(r -> {
          w.field(r.identifier().value());
          w.comma();
          w.ascii(r.reason().wireName());
          w.newline();
        });
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      w.flush();
      file.commit();
    }
    return count[0];
  }
}
