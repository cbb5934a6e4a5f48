package dev.veil.cli.map;

import dev.veil.sdk.MappingCache;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes {@code veil map}'s output from the cache: {@code identifier,advertising_id,bucket_id}, one
 * row per identifier in input order, and the rejected identifiers beside it ({@code
 * identifier,reason}). Each file is written to a temporary file, synced and renamed over the
 * target, so a reader (or a killed run) never sees half a file.
 */
final class MappingFile {
  private MappingFile() {}

  /** Writes the mappings; returns the number of rows. */
  static long writeMappings(MappingCache cache, Path out) throws IOException {
    long[] rows = {0};
    replace(out, w -> {
      w.ascii("identifier,advertising_id,bucket_id\n");
      cache.forEach(m -> {
        w.field(m.identifier().value());
        w.comma();
        w.field(m.advertisingId());
        w.comma();
        w.field(m.bucketId());
        w.newline();
        rows[0]++;
      });
    });
    return rows[0];
  }

  /** Writes the rejections to {@code out} when there are any; returns how many. */
  static long writeRejections(MappingCache cache, Path out) throws IOException {
    long[] count = {0};
    cache.forEachRejection(r -> count[0]++);
    if (count[0] == 0) {
      return 0;
    }
    replace(out, w -> {
      w.ascii("identifier,reason\n");
      cache.forEachRejection(r -> {
        w.field(r.identifier().value());
        w.comma();
        w.ascii(r.reason().wireName());
        w.newline();
      });
    });
    return count[0];
  }

  private interface Content {
    void write(CsvWriter w) throws IOException;
  }

  private static void replace(Path target, Content content) throws IOException {
    Path absolute = target.toAbsolutePath();
    Path tmp = absolute.resolveSibling(absolute.getFileName() + ".tmp");
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      CsvWriter w = new CsvWriter(channel);
      try {
        content.write(w);
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      w.flush();
      channel.force(true);
    }
    Files.move(tmp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
