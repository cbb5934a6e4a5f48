package dev.veil.sdk.internal.cache;

import dev.veil.sdk.Identifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Identifiers on their way into the store, prepared before its lock is taken: value bytes, kind
 * codes and fingerprints.
 */
final class Adding {
  private final byte[][] values;
  private final int[] kinds;
  private final long[] hashes;
  int added;

  Adding(List<Identifier> identifiers, Fingerprint fingerprint) {
    int n = identifiers.size();
    values = new byte[n][];
    kinds = new int[n];
    hashes = new long[n];
    for (int i = 0; i < n; i++) {
      Identifier id = identifiers.get(i);
      values[i] = utf8(id.value());
      kinds[i] = KindCode.of(id.kind());
      hashes[i] = fingerprint.of(kinds[i], values[i], 0, values[i].length);
    }
  }

  int size() {
    return values.length;
  }

  byte[] value(int i) {
    return values[i];
  }

  int kind(int i) {
    return kinds[i];
  }

  long hash(int i) {
    return hashes[i];
  }

  /**
   * Confirms index candidates against the identifier set by {@link #at} (whose record may still be
   * in the frame being built). One object serves a whole add: no allocation per lookup.
   */
  static final class Confirmer implements IdentifierIndex.Confirm {
    private final Adding adding;
    private final MappingStore store;
    private int i;
    private Frame frame;
    private long frameBase;

    Confirmer(Adding adding, MappingStore store) {
      this.adding = adding;
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
      return store.sameIdentifier(entry, adding.kinds[i], adding.values[i], frame, frameBase);
    }
  }

  /** UTF-8 bytes of a value, within {@link MappingStore#MAX_VALUE_BYTES}. */
  static byte[] utf8(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MappingStore.MAX_VALUE_BYTES) {
      throw new IllegalArgumentException("identifier longer than " + MappingStore.MAX_VALUE_BYTES + " bytes");
    }
    return bytes;
  }
}
