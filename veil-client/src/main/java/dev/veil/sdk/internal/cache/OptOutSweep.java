package dev.veil.sdk.internal.cache;

import dev.veil.sdk.Identifier;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.Rejection;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A refresh's check of the held advertising ids against the server's opt-outs (v3's flow: a person
 * who opted out after being mapped is found at the next refresh, not at the next rotation): the
 * current mappings are read in chunks, each chunk's ids are asked about, and the entries whose id
 * the server lists as opted out are removed and recorded as rejected, one frame per chunk. A crash
 * between chunks loses nothing: the next refresh asks again about what is still held. Not
 * thread-safe: one refresh's, inside the cache's run lock.
 */
public final class OptOutSweep {
  /** Asks the server which of {@code ids} are opted out. */
  public interface Check {
    /** For each id, in order: when it opted out (epoch ms), or -1 if it did not. */
    long[] optedOutSince(List<String> ids);
  }

  private OptOutSweep() {}

  /**
   * Checks every current mapping, {@code chunk} ids per call of {@code check}; returns the entries
   * removed.
   */
  static List<Rejection> run(MappingStore store, int chunk, Check check, Instant now)
      throws IOException {
    List<Rejection> removed = new ArrayList<>();
    LogReader reader = new LogReader(store.log(), 4);
    int[] entry = new int[chunk];
    long[] mapAt = new long[chunk];
    long[] addAt = new long[chunk];
    int next = 0;
    while (true) {
      int k = 0;
      synchronized (store.guard()) {
        EntryTable entries = store.state().entries;
        while (next < entries.count() && k < chunk) {
          if (entries.mapAt(next) >= 0 && !entries.isStale(next)) {
            entry[k] = next;
            addAt[k] = entries.addAt(next);
            mapAt[k++] = entries.mapAt(next);
          }
          next++;
        }
      }
      if (k == 0) {
        return removed;
      }
      List<String> ids = new ArrayList<>(k);
      for (int i = 0; i < k; i++) {
        ids.add(StoredMapping.read(reader.record(mapAt[i])).advertisingId());
      }
      long[] since = check.optedOutSince(ids);
      if (since.length != k) {
        throw new IllegalStateException("opt-out check answered " + since.length + " of " + k);
      }
      remove(store, reader, entry, mapAt, addAt, since, k, now, removed);
    }
  }

  private static void remove(
      MappingStore store,
      LogReader reader,
      int[] entry,
      long[] mapAt,
      long[] addAt,
      long[] since,
      int k,
      Instant now,
      List<Rejection> removed)
      throws IOException {
    Frame f = null;
    int[] rejectOffsets = new int[k];
    List<Integer> gone = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      if (since[i] < 0) {
        continue;
      }
      Records.Cursor add = reader.record(addAt[i]);
      add.u8();
      int kind = add.u8();
      int length = add.varint32();
      if (f == null) {
        f = new Frame(256 + 64 * k);
      }
      f.remove(entry[i]);
      rejectOffsets[gone.size()] = f.nextRecordOffset();
      f.reject(
          kind,
          ReasonCode.of(MapOutcome.Reason.OPTED_OUT),
          now.toEpochMilli(),
          add.b,
          add.pos,
          length);
      Identifier id = Identifier.of(KindCode.kind(kind), add.text(length));
      removed.add(new Rejection(id, MapOutcome.Reason.OPTED_OUT, now));
      gone.add(i);
    }
    if (f == null) {
      return;
    }
    Frame frame = f;
    store.appendAndApply(
        frame,
        base -> {
          EntryTable entries = store.state().entries;
          for (int g = 0; g < gone.size(); g++) {
            int i = gone.get(g);
            if (entries.mapAt(entry[i]) != mapAt[i]) {
              throw new IllegalStateException("entry changed during the opt-out check");
            }
            entries.remove(entry[i]);
            store.state().rejected(base + rejectOffsets[g]);
          }
        });
  }
}
