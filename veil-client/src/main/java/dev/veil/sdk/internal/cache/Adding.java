package dev.veil.sdk.internal.cache;

import dev.veil.core.text.ByteScan;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.MapOutcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Identifiers on their way into the store: value bytes, kind codes and fingerprints prepared before
 * the store's lock is taken ({@link #Adding}), then, under it, each looked up and, if new, appended
 * as an {@code ADD} record and indexed ({@link #write}).
 */
final class Adding {
  /** Frames of an add are cut at about this size. */
  private static final int FRAME_TARGET = 4 << 20;

  /** Index slots are read ahead for this many identifiers at a time (64 KiB of cache lines). */
  private static final int PREFETCH_GROUP = 1024;

  private final Values values;
  private final int[] kinds;
  private final long[] hashes;
  int added;

  Adding(Values values, Fingerprint fingerprint) {
    int n = values.size();
    this.values = values;
    kinds = new int[n];
    hashes = new long[n];
    byte[] b = values.array();
    for (int i = 0; i < n; i++) {
      kinds[i] = KindCode.of(values.kind(i));
      hashes[i] = fingerprint.of(kinds[i], b, values.start(i), values.length(i));
    }
  }

  int size() {
    return kinds.length;
  }

  long hash(int i) {
    return hashes[i];
  }

  /**
   * Under the store's guard: appends the new identifiers (each once, also within this add), the
   * {@code invalid} ones as rejected and the setting {@code key} (if not null) after them, and
   * updates the store's state. Counts the new ones in {@link #added}.
   */
  void write(
      MappingStore store,
      Frame f,
      List<Identifier> invalid,
      long atMillis,
      String key,
      String value)
      throws IOException {
    StoreState state = store.state();
    LogFile log = store.log();
    f.reset();
    long base = log.end() + Frame.HEAD;
    Confirmer confirmer = new Confirmer(store);
    byte[] b = values.array();
    for (int i = 0; i < kinds.length; i++) {
      if (i % PREFETCH_GROUP == 0) {
        state.index.prefetch(hashes, i, Math.min(kinds.length, i + PREFETCH_GROUP));
      }
      if (state.index.find(hashes[i], confirmer.at(i, f, base)) >= 0) {
        continue;
      }
      if (f.payloadSize() > FRAME_TARGET) {
        log.append(f.seal());
        f.reset();
        base = log.end() + Frame.HEAD;
      }
      int offset = f.nextRecordOffset();
      f.add(kinds[i], b, values.start(i), values.length(i));
      state.index.insert(hashes[i], state.entries.add(base + offset));
      added++;
    }
    for (Identifier id : invalid) {
      byte[] bytes = utf8(id.value());
      int offset = f.nextRecordOffset();
      f.reject(
          KindCode.of(id.kind()),
          ReasonCode.of(MapOutcome.Reason.INVALID_IDENTIFIER),
          atMillis,
          bytes,
          0,
          bytes.length);
      state.rejected(base + offset);
    }
    if (key != null) {
      f.meta(key, value);
      state.putMeta(key, value);
    }
    if (!f.isEmpty()) {
      log.append(f.seal());
    }
  }

  /** Under the guard: the entry holding identifier {@code i}, or -1. */
  int find(MappingStore store, int i) throws IOException {
    return store.state().index.find(hashes[i], new Confirmer(store).at(i, null, Long.MAX_VALUE));
  }

  /**
   * Confirms index candidates against identifier {@code i} (whose record may still be in the frame
   * being built). One object serves a whole add: no allocation per lookup.
   */
  private final class Confirmer implements IdentifierIndex.Confirm {
    private final MappingStore store;
    private int i;
    private Frame frame;
    private long frameBase;

    Confirmer(MappingStore store) {
      this.store = store;
    }

    Confirmer at(int identifier, Frame frame, long frameBase) {
      this.i = identifier;
      this.frame = frame;
      this.frameBase = frameBase;
      return this;
    }

    @Override
    public boolean same(int entry) throws IOException {
      EntryTable entries = store.state().entries;
      if (!entries.isHeld(entry)) {
        return false;
      }
      long at = entries.addAt(entry);
      Records.Cursor c =
          at >= frameBase
              ? new Records.Cursor(
                  frame.array(),
                  Frame.HEAD + (int) (at - frameBase),
                  Frame.HEAD + frame.payloadSize())
              : store.lookups().record(at);
      c.u8();
      int length = values.length(i);
      if (c.u8() != kinds[i] || c.varint32() != length) {
        return false;
      }
      int start = values.start(i);
      return c.has(length) && ByteScan.sameBytes(c.b, c.pos, values.array(), start, length);
    }
  }

  /**
   * UTF-8 bytes of a rejected value, as recorded: a value longer than {@link
   * MappingStore#MAX_VALUE_BYTES} (never a valid identifier) by its first characters that fit.
   */
  static byte[] utf8(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MappingStore.MAX_VALUE_BYTES) {
      return bytes;
    }
    int end = MappingStore.MAX_VALUE_BYTES;
    while ((bytes[end] & 0xC0) == 0x80) { // not between a character's bytes
      end--;
    }
    return Arrays.copyOf(bytes, end);
  }
}
