package dev.veil.sdk.internal.cache;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Everything a {@link MappingStore} holds in memory, rebuilt by replaying the file's records in
 * order when it is opened ({@link #frame}, a {@link LogFile.FrameVisitor}) and then kept in step
 * with every frame the store appends: the entries ({@link EntryTable}), their index, the settings
 * and where the rejection records are. Not thread-safe (the store guards it).
 */
final class StoreState implements LogFile.FrameVisitor {
  final Fingerprint fingerprint;
  final EntryTable entries = new EntryTable();
  final IdentifierIndex index;
  final Map<String, String> meta = new HashMap<>();
  private long[] rejections = new long[16];
  private int rejectionCount;

  /** Settings records that a newer one replaced: garbage for compaction, like replaced entries. */
  private long replacedMeta;

  StoreState(Fingerprint fingerprint) {
    this.fingerprint = fingerprint;
    this.index = new IdentifierIndex(1024, entries::isHeld);
  }

  /** Positions of the {@code REJECT} records, oldest first. */
  long[] rejections() {
    return Arrays.copyOf(rejections, rejectionCount);
  }

  void rejected(long position) {
    if (rejectionCount == rejections.length) {
      rejections = Arrays.copyOf(rejections, rejectionCount * 2);
    }
    rejections[rejectionCount++] = position;
  }

  void putMeta(String key, String value) {
    if (meta.put(key, value) != null) {
      replacedMeta++;
    }
  }

  /** Records that compaction would drop. */
  long garbageRecords() {
    return entries.replacedRecords() + replacedMeta;
  }

  @Override
  public void frame(long position, byte[] payload, int offset, int length) throws IOException {
    Records.Cursor c = new Records.Cursor(payload, offset, offset + length);
    while (c.pos < c.limit) {
      long at = position + (c.pos - offset);
      int type = c.u8();
      switch (type) {
        case Records.ADD -> {
          c.require(2);
          int kind = c.u8();
          int n = c.varint32();
          c.require(n);
          int entry = entries.add(at);
          index.insert(fingerprint.of(kind, payload, c.pos, n), entry);
          c.pos += n;
        }
        case Records.MAP, Records.MAP3 -> {
          int entry = entry(c);
          int times = type == Records.MAP3 ? 16 : 8;
          c.require(times + 1);
          c.pos += 8;
          long refreshFromMillis = type == Records.MAP3 ? c.int64() : 0;
          int adv = c.varint32();
          c.require(adv + 1);
          c.pos += adv;
          int second = c.varint32(); // the bucket id, or the previous id
          c.require(second);
          c.pos += second;
          entries.mapped(entry, at, refreshFromMillis);
        }
        case Records.STALE -> {
          int count = c.varint32();
          int entry = 0;
          for (int i = 0; i < count; i++) {
            c.require(1);
            entry += c.varint32();
            check(entry);
            entries.markStale(entry);
          }
        }
        case Records.REMOVE -> entries.remove(entry(c));
        case Records.REJECT -> {
          c.require(11);
          c.pos += 10;
          int n = c.varint32();
          c.require(n);
          c.pos += n;
          rejected(at);
        }
        case Records.META -> {
          int k = c.varint32();
          c.require(k + 1);
          String key = c.text(k);
          int v = c.varint32();
          c.require(v);
          putMeta(key, c.text(v));
        }
        default ->
            throw new IOException(
                "unknown record type "
                    + type
                    + " in the mapping cache (written by a newer client?)");
      }
    }
  }

  private int entry(Records.Cursor c) throws IOException {
    c.require(1);
    int entry = c.varint32();
    check(entry);
    return entry;
  }

  private void check(int entry) throws IOException {
    if (entry < 0 || entry >= entries.count()) {
      throw new IOException("mapping cache record names entry " + entry + " before it was added");
    }
  }
}
