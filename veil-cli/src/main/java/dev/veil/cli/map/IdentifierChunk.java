package dev.veil.cli.map;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.internal.cache.Values;
import java.util.ArrayList;
import java.util.List;

/**
 * Identifiers read from a file, as bytes ({@link Values}: no object per identifier), and the few
 * whose value has no UTF-8 form (an unpaired surrogate, so invalid), kept to be rejected. Reused
 * from one chunk of lines to the next.
 */
final class IdentifierChunk {
  private final Values values;
  private final List<Identifier> malformed = new ArrayList<>();

  IdentifierChunk(int expected) {
    this.values = new Values(expected);
  }

  void addUtf8(IdentityInput kind, byte[] utf8, int offset, int length) {
    values.addUtf8(kind, utf8, offset, length);
  }

  void add(Identifier identifier) {
    if (!values.add(identifier)) {
      malformed.add(identifier);
    }
  }

  /** The identifiers with a UTF-8 form, in the order read. */
  Values values() {
    return values;
  }

  /** The identifiers without one (each invalid). */
  List<Identifier> malformed() {
    return malformed;
  }

  int size() {
    return values.size() + malformed.size();
  }

  boolean isEmpty() {
    return size() == 0;
  }

  /** Identifier {@code i}: those with a UTF-8 form first, then the others. */
  Identifier get(int i) {
    return i < values.size() ? values.identifier(i) : malformed.get(i - values.size());
  }

  void clear() {
    values.clear();
    malformed.clear();
  }
}
