package dev.veil.cli.map;

import dev.veil.sdk.MappingCache;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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
      w.write("identifier,advertising_id,bucket_id\n");
      cache.forEach(m -> {
        try {
          w.write(Csv.field(m.identifier().value()));
          w.write(',');
          w.write(m.advertisingId());
          w.write(',');
          w.write(Csv.field(m.bucketId()));
          w.write('\n');
          rows[0]++;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
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
      w.write("identifier,reason\n");
      cache.forEachRejection(r -> {
        try {
          w.write(Csv.field(r.identifier().value()) + "," + r.reason().wireName() + "\n");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    });
    return count[0];
  }

  private interface Content {
    void write(Writer w) throws IOException;
  }

  private static void replace(Path target, Content content) throws IOException {
    Path absolute = target.toAbsolutePath();
    Path tmp = absolute.resolveSibling(absolute.getFileName() + ".tmp");
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      Writer w = new BufferedWriter(new OutputStreamWriter(Channels.newOutputStream(channel), StandardCharsets.UTF_8),
          1 << 16);
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
