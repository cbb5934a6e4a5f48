package dev.veil.sdk.internal.cache;

import dev.veil.sdk.internal.RotatedBuckets;
import java.io.IOException;
import java.util.Arrays;

/**
 * A poll's marks: selects the current mappings made at or before their bucket's rotation, then
 * appends {@code STALE} records for them with the poll's settings in the last frame. Marks are
 * idempotent and the settings (the poll's watermark) come last, so a crash between frames only
 * makes the next poll mark the rest again.
 */
final class StaleMarking {
  private static final int CHUNK = 1 << 16;
  private static final int MARKS_PER_FRAME = 1 << 20;

  private final RotatedBuckets rotatedAtMillis;

  StaleMarking(RotatedBuckets rotatedAtMillis) {
    this.rotatedAtMillis = rotatedAtMillis;
  }

  /** The entries to mark, ascending; reads the mappings through the file's positions. */
  int[] select(MappingStore store) throws IOException {
    if (rotatedAtMillis.size() == 0) {
      return new int[0];
    }
    LogReader reader = new LogReader(store.log(), 4);
    int[] marked = new int[1024];
    int n = 0;
    int[] entry = new int[CHUNK];
    long[] mapAt = new long[CHUNK];
    for (int start = 0; ; start += CHUNK) {
      int k = 0;
      synchronized (store.guard()) {
        EntryTable entries = store.state().entries;
        if (start >= entries.count()) {
          return Arrays.copyOf(marked, n);
        }
        for (int e = start; e < Math.min(start + CHUNK, entries.count()); e++) {
          if (entries.mapAt(e) >= 0 && !entries.isStale(e)) {
            entry[k] = e;
            mapAt[k++] = entries.mapAt(e);
          }
        }
      }
      for (int i = 0; i < k; i++) {
        StoredMapping m = StoredMapping.read(reader.record(mapAt[i]));
        // An entry mapped over v3 has no bucket id to poll by: a cache back on v1 maps it again.
        long rotatedAt =
            m.bucketId() == null ? Long.MAX_VALUE : rotatedAtMillis.rotatedAtMillis(m.bucketId());
        if (rotatedAt != RotatedBuckets.ABSENT && m.mappedAtMillis() <= rotatedAt) {
          if (n == marked.length) {
            marked = Arrays.copyOf(marked, n * 2);
          }
          marked[n++] = entry[i];
        }
      }
    }
  }

  /**
   * Appends the marks and settings and applies them; called under the store's guard. Returns the
   * count.
   */
  static long commit(MappingStore store, int[] marked, String... keysAndValues) throws IOException {
    long count = 0;
    int from = 0;
    do {
      int to = Math.min(marked.length, from + MARKS_PER_FRAME);
      Frame f = new Frame(16 + 5 * (to - from));
      if (to > from) {
        f.stale(Arrays.copyOfRange(marked, from, to), to - from);
      }
      if (to == marked.length) {
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
          f.meta(keysAndValues[i], keysAndValues[i + 1]);
        }
      }
      if (!f.isEmpty()) {
        store.log().append(f.seal());
      }
      for (int i = from; i < to; i++) {
        count += store.state().entries.markStale(marked[i]) ? 1 : 0;
      }
      from = to;
    } while (from < marked.length);
    for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
      store.state().putMeta(keysAndValues[i], keysAndValues[i + 1]);
    }
    return count;
  }
}
