package dev.veil.sdk.internal.cache;

import dev.veil.core.text.ByteScan;
import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.ValueList;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Walks the mapped entries in entry order and hands each one's {@code ADD} and {@code MAP} records
 * to a {@link Sink}: as objects ({@link #objects}) or as CSV rows written straight from the
 * records' bytes ({@link CsvRows}). A walk may follow a mapping run: while {@code mapping} is true,
 * it stops at the first entry that waits to be mapped and goes on when a write changed something.
 */
final class Export {
  private static final int CHUNK = 4096;

  /** Receives each mapped entry's records; the cursors are valid during the call only. */
  interface Sink {
    void entry(Records.Cursor add, Records.Cursor map, boolean stale) throws IOException;

    /**
     * A walk that follows a run has written every entry mapped so far and is about to wait for
     * more: a moment to push out what is buffered (nothing by default).
     */
    default void caughtUp() throws IOException {}
  }

  /** A sink that can also take an entry from the answer its current mapping was stored from. */
  interface AnswerSink extends Sink {
    /** Entry {@code i} of an answer handed over. */
    void answered(AnswerHandoff.Stored stored, int i) throws IOException;
  }

  private Export() {}

  /**
   * Walks every mapped entry; an {@link IOException} can only come from the sink. While {@code
   * mapping} is true, waits for entries that wait to be mapped and for entries added later; once it
   * is false, finishes like a plain walk (stale entries with their previous mapping, entries never
   * mapped skipped).
   */
  static void walk(MappingStore store, BooleanSupplier mapping, Sink sink) throws IOException {
    LogReader adds = new LogReader(store.log(), 2);
    LogReader maps = new LogReader(store.log(), 4);
    AnswerSink answers = sink instanceof AnswerSink a ? a : null;
    AnswerHandoff.Reader handedOver = new AnswerHandoff.Reader(store.handoff());
    int[] entry = new int[CHUNK];
    long[] addAt = new long[CHUNK];
    long[] mapAt = new long[CHUNK];
    boolean[] stale = new boolean[CHUNK];
    int next = 0;
    while (true) {
      long seen = store.changes().count();
      boolean live =
          mapping.getAsBoolean(); // read before the scan: once false, the scan sees the final state
      int n = 0;
      boolean blocked = false;
      int count;
      synchronized (store.guard()) {
        EntryTable entries = store.state().entries;
        count = entries.count();
        for (; next < count && n < CHUNK; next++) {
          if (live && entries.isPending(next)) {
            blocked = true;
            break;
          }
          if (entries.mapAt(next) >= 0) {
            entry[n] = next;
            addAt[n] = entries.addAt(next);
            mapAt[n] = entries.mapAt(next);
            stale[n++] = entries.isStale(next);
          }
        }
      }
      for (int i = 0; i < n; i++) {
        if (answers != null && handedOver.find(entry[i], mapAt[i])) {
          answers.answered(handedOver.stored(), handedOver.index());
        } else {
          sink.entry(record(store, adds, addAt[i]), record(store, maps, mapAt[i]), stale[i]);
        }
      }
      if (!live && next >= count) {
        return;
      }
      if (blocked || next >= count) {
        sink.caughtUp();
        store.handoff().exportWaits(true);
        try {
          store.changes().awaitAfter(seen);
        } finally {
          store.handoff().exportWaits(false);
        }
      }
    }
  }

  /** A record of the cache; a failure to read it is the cache's (unchecked), not the sink's. */
  private static Records.Cursor record(MappingStore store, LogReader reader, long position) {
    try {
      return reader.record(position);
    } catch (IOException e) {
      throw MappingStore.failure("read " + store.log().path(), e);
    }
  }

  /** A sink that builds a {@link CachedMapping} per entry. */
  static Sink objects(Consumer<CachedMapping> action) {
    return (add, map, stale) -> {
      Identifier id = StoredMapping.identifier(add);
      action.accept(StoredMapping.read(map).toCached(id, stale));
    };
  }

  /**
   * CSV rows {@code identifier,advertising_id,bucket_id}, or for a cache on v3 {@code
   * identifier,advertising_id,previous_advertising_id,refresh_from} (epoch seconds; empty fields
   * where an entry mapped over the other version has none), RFC 4180 (a field holding a comma,
   * quote, CR or LF is quoted, quotes doubled), copied from the records' UTF-8 bytes through a
   * buffer.
   */
  static final class CsvRows implements AnswerSink {
    static final byte[] HEADER =
        "identifier,advertising_id,bucket_id\n".getBytes(StandardCharsets.US_ASCII);
    static final byte[] HEADER_V3 =
        "identifier,advertising_id,previous_advertising_id,refresh_from\n"
            .getBytes(StandardCharsets.US_ASCII);

    private final OutputStream out;
    private final boolean v3;
    private final byte[] buf = new byte[1 << 20];
    private int size;
    private long rows;
    private long fromAnswers;

    CsvRows(OutputStream out, boolean v3) {
      this.out = out;
      this.v3 = v3;
    }

    void header() throws IOException {
      byte[] header = v3 ? HEADER_V3 : HEADER;
      bytes(header, 0, header.length);
    }

    @Override
    public void entry(Records.Cursor add, Records.Cursor map, boolean stale) throws IOException {
      add.u8();
      add.u8();
      int idLength = add.varint32();
      field(add.b, add.pos, idLength);
      put(',');
      boolean mapV3 = map.u8() == Records.MAP3;
      map.varint32();
      map.pos += 8; // mapped-at: not in the CSV
      long refreshFromMillis = mapV3 ? map.int64() : 0;
      int advLength = map.varint32();
      field(map.b, map.pos, advLength);
      map.pos += advLength;
      put(',');
      int secondLength = map.varint32(); // the bucket id (MAP) or the previous id (MAP3)
      if (mapV3 == v3) {
        field(map.b, map.pos, secondLength);
      }
      if (v3) {
        put(',');
        if (mapV3) {
          seconds(refreshFromMillis);
        }
      }
      put('\n');
      rows++;
    }

    /**
     * Epoch seconds, rounded up from milliseconds, in decimal: written into the buffer from the
     * last digit back, without a string per row.
     */
    private void seconds(long millis) throws IOException {
      long seconds = (millis + 999) / 1000;
      if (seconds < 0) { // before 1970: no answer gives one; written as Java writes it
        String text = Long.toString(seconds);
        bytes(text.getBytes(StandardCharsets.US_ASCII), 0, text.length());
        return;
      }
      int digits = 1;
      for (long t = seconds; t >= 10; t /= 10) {
        digits++;
      }
      if (buf.length - size < digits) {
        flush();
      }
      for (int i = size + digits - 1; i >= size; i--) {
        buf[i] = (byte) ('0' + seconds % 10);
        seconds /= 10;
      }
      size += digits;
    }

    /**
     * The same row, from the value sent and the answer (the bytes its records were stored from).
     */
    @Override
    public void answered(AnswerHandoff.Stored stored, int i) throws IOException {
      ValueList values = stored.part.values();
      MapAnswer answer = stored.answer;
      boolean plain = stored.plainCsv(); // known for the whole answer: then no field is checked
      field(plain, values.bytes(), values.start(i), values.length(i));
      put(',');
      field(plain, answer.data(), answer.advertisingIdStart(i), answer.advertisingIdLength(i));
      put(',');
      if (answer.isV3()) {
        if (v3 && answer.hasPrevious(i)) {
          field(plain, answer.data(), answer.previousStart(i), answer.previousLength(i));
        }
      } else if (!v3) {
        field(plain, answer.data(), answer.bucketIdStart(i), answer.bucketIdLength(i));
      }
      if (v3) {
        put(',');
        if (answer.isV3()) {
          seconds(answer.refreshFromMillis(i));
        }
      }
      put('\n');
      rows++;
      fromAnswers++;
    }

    private void field(boolean plain, byte[] b, int off, int len) throws IOException {
      if (plain) {
        bytes(b, off, len);
      } else {
        field(b, off, len);
      }
    }

    /** Rows written from answers handed over (the rest from the records). */
    long rowsFromAnswers() {
      return fromAnswers;
    }

    long rows() {
      return rows;
    }

    private void field(byte[] b, int off, int len) throws IOException {
      if (len <= buf.length - size) {
        int end = ByteScan.copyIfPlainCsv(b, off, len, buf, size);
        if (end >= 0) {
          size = end; // the usual case: checked and copied in one pass
          return;
        }
      }
      if (ByteScan.csvSpecial(b, off, off + len) >= 0) {
        quoted(b, off, len);
      } else {
        bytes(b, off, len);
      }
    }

    private void quoted(byte[] b, int off, int len) throws IOException {
      put('"');
      for (int i = off; i < off + len; i++) {
        if (b[i] == '"') {
          put('"');
        }
        put(b[i]);
      }
      put('"');
    }

    private void put(int c) throws IOException {
      if (size == buf.length) {
        flush();
      }
      buf[size++] = (byte) c;
    }

    private void bytes(byte[] b, int off, int len) throws IOException {
      if (size + len > buf.length) {
        flush();
        if (len > buf.length) {
          out.write(b, off, len);
          return;
        }
      }
      System.arraycopy(b, off, buf, size, len);
      size += len;
    }

    /**
     * Writes what is buffered and flushes the stream, while the walk waits for the run: a stream
     * that forces to disk on flush then does so while the run works, not all at the end.
     */
    @Override
    public void caughtUp() throws IOException {
      flush();
      out.flush();
    }

    /** Writes what is buffered to the stream (without flushing the stream itself). */
    void flush() throws IOException {
      out.write(buf, 0, size);
      size = 0;
    }
  }
}
