package dev.veil.sdk;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.internal.cache.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Identifiers for a {@link MappingCache} in bulk, without an object per identifier: their values
 * are kept as UTF-8, one after the other, in one growing array. An import that reads a file can
 * hand over each value's bytes as it finds them, and reuse one batch for every chunk:
 *
 * <pre>{@code
 * IdentifierBatch batch = new IdentifierBatch(10_000);
 * // for each line of the file, bytes [start, end) of buffer:
 * batch.addUtf8(IdentityInput.EMAIL, buffer, start, end - start);
 * if (batch.size() == 10_000) {
 *   cache.addBuffered(batch, "emails.txt", lineNumber); // copies what it keeps
 *   batch.clear();
 * }
 * }</pre>
 *
 * <p>The cache treats a batch exactly as the same identifiers in a list: invalid ones are not added
 * and are recorded as rejected. Not thread-safe.
 */
public final class IdentifierBatch {
  private final Values values;

  /**
   * Identifiers whose value has no UTF-8 form (an unpaired surrogate): invalid, kept to be
   * rejected.
   */
  private final List<Identifier> malformed = new ArrayList<>();

  /** An empty batch. */
  public IdentifierBatch() {
    this(1024);
  }

  /** An empty batch with room for about {@code expected} identifiers before it grows. */
  public IdentifierBatch(int expected) {
    this.values = new Values(expected);
  }

  /**
   * Appends an identifier. One whose value has no UTF-8 form, or is longer than 1 MiB in UTF-8, is
   * invalid like any other that does not normalize (rejected, and recorded by its first 1 MiB).
   */
  public IdentifierBatch add(Identifier identifier) {
    if (!values.add(Objects.requireNonNull(identifier, "identifier"))) {
      malformed.add(identifier);
    }
    return this;
  }

  /**
   * Appends an identifier of {@code kind} whose value is the {@code length} bytes of {@code utf8}
   * from {@code offset}, taken exactly (not trimmed). The bytes are copied.
   *
   * @throws IllegalArgumentException if they are not well-formed UTF-8, or longer than 1 MiB
   */
  public IdentifierBatch addUtf8(IdentityInput kind, byte[] utf8, int offset, int length) {
    Objects.requireNonNull(kind, "kind");
    Objects.checkFromIndexSize(offset, length, utf8.length);
    values.addUtf8(kind, utf8, offset, length);
    return this;
  }

  /** How many identifiers it holds. */
  public int size() {
    return values.size() + malformed.size();
  }

  /**
   * Identifier {@code i} (its value decoded from the batch's bytes); identifiers whose value has no
   * UTF-8 form (an unpaired surrogate, so invalid) come after all others.
   *
   * @throws IndexOutOfBoundsException if {@code i} is not below {@link #size()}
   */
  public Identifier get(int i) {
    Objects.checkIndex(i, size());
    return i < values.size() ? values.identifier(i) : malformed.get(i - values.size());
  }

  /** Whether the batch holds no identifier. */
  public boolean isEmpty() {
    return size() == 0;
  }

  /** Empties it, keeping its arrays for the next identifiers. */
  public void clear() {
    values.clear();
    malformed.clear();
  }

  Values values() {
    return values;
  }

  List<Identifier> malformed() {
    return malformed;
  }
}
