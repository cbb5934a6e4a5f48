package dev.veil.sdk.internal.cache;

import dev.veil.sdk.Rejection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;

/**
 * Rewrites a mapping cache with only its current records: the settings, each rejected identifier
 * once, and for every entry held its {@code ADD}, its current {@code MAP} and its stale mark,
 * renumbered densely in the same order. The new file is written beside the old one ({@code
 * <name>.compacting}), forced to disk, and renamed over it; the directory is then forced. A crash
 * before the rename leaves the old file as it was (the leftover is deleted at the next open); after
 * it, the new file is complete.
 */
final class Compaction {
  private static final int FRAME_TARGET = 4 << 20;

  private Compaction() {}

  static Path temporaryFile(Path cache) {
    return cache.resolveSibling(cache.getFileName() + ".compacting");
  }

  /**
   * Writes the current records of {@code state} (read through {@code log}) to {@code target},
   * forced.
   */
  static void write(LogFile log, StoreState state, Path target) throws IOException {
    Files.deleteIfExists(target);
    LogFile.createPrivately(target);
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.WRITE)) {
      Output o = new Output(out);
      o.write(ByteBuffer.wrap(LogFile.MAGIC));
      for (Map.Entry<String, String> setting : state.meta.entrySet()) {
        o.frame.meta(setting.getKey(), setting.getValue());
      }
      for (Rejection r : Rejections.latest(new LogReader(log, 2), state.rejections())) {
        byte[] value = r.identifier().value().getBytes(StandardCharsets.UTF_8);
        o.frame.reject(
            KindCode.of(r.identifier().kind()),
            ReasonCode.of(r.reason()),
            r.at().toEpochMilli(),
            value,
            0,
            value.length);
        o.flushIfFull();
      }
      copyEntries(log, state.entries, o);
      o.flush();
      out.force(true);
    }
  }

  private static void copyEntries(LogFile log, EntryTable entries, Output o) throws IOException {
    LogReader adds = new LogReader(log, 2);
    LogReader maps = new LogReader(log, 4);
    int next = 0;
    for (int e = 0; e < entries.count(); e++) {
      if (!entries.isHeld(e)) {
        continue;
      }
      Records.Cursor add = adds.record(entries.addAt(e));
      o.frame.raw(add.b, add.pos, add.limit - add.pos);
      int renumbered = next++;
      if (entries.mapAt(e) >= 0) {
        Records.Cursor map = maps.record(entries.mapAt(e));
        int type = map.u8();
        map.varint32();
        o.frame.mapAs(type, renumbered, map.b, map.pos, map.limit - map.pos);
        if (entries.isStale(e)) {
          o.stale(renumbered);
        }
      }
      o.flushIfFull();
    }
  }

  /** Renames the written file over the cache and forces the directory. */
  static void replace(Path cache) throws IOException {
    Files.move(
        temporaryFile(cache),
        cache,
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    LogFile.syncDirectory(cache);
  }

  /**
   * Frames of about {@link #FRAME_TARGET} bytes; stale marks go at the end of the frame holding
   * their mappings.
   */
  private static final class Output {
    final Frame frame = new Frame(FRAME_TARGET + (64 << 10));
    private final FileChannel out;
    private int[] stale = new int[256];
    private int staleCount;

    Output(FileChannel out) {
      this.out = out;
    }

    void stale(int entry) {
      if (staleCount == stale.length) {
        stale = Arrays.copyOf(stale, staleCount * 2);
      }
      stale[staleCount++] = entry;
    }

    void flushIfFull() throws IOException {
      if (frame.payloadSize() >= FRAME_TARGET) {
        flush();
      }
    }

    void flush() throws IOException {
      if (staleCount > 0) {
        frame.stale(stale, staleCount);
        staleCount = 0;
      }
      if (!frame.isEmpty()) {
        write(frame.seal());
        frame.reset();
      }
    }

    void write(ByteBuffer bytes) throws IOException {
      while (bytes.hasRemaining()) {
        out.write(bytes);
      }
    }
  }
}
