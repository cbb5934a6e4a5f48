package dev.veil.sdk.internal.cache;

import dev.veil.sdk.Identifier;
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

  /** Confirms index candidates for identifier {@code i} (whose record may be in {@code frame}). */
  IdentifierIndex.Confirm confirmer(int i, MappingStore store, Frame frame, long frameBase) {
    return entry -> store.sameIdentifier(entry, kinds[i], values[i], frame, frameBase);
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
