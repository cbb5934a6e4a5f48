package dev.veil.sdk.internal.cache;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.internal.ValueList;

/**
 * Entries waiting to be mapped, as a run takes them from the store: their numbers, kinds, whether
 * they were mapped before, and their values (as added, UTF-8) in one {@link ValueList}. Parts of it
 * ({@link #select}) are what one request carries and what {@link MappingStore#apply} stores the
 * answer of. Not thread-safe; handed from thread to thread whole.
 */
public final class PendingBatch {
  private final int[] entries;
  private final byte[] kinds;
  private final boolean[] mappedBefore;
  private final ValueList values;
  private int size;

  PendingBatch(int capacity) {
    entries = new int[capacity];
    kinds = new byte[capacity];
    mappedBefore = new boolean[capacity];
    values = new ValueList(capacity, capacity * 32);
  }

  void add(int entry, int kindCode, boolean before, byte[] src, int off, int len) {
    entries[size] = entry;
    kinds[size] = (byte) kindCode;
    mappedBefore[size] = before;
    values.add(src, off, len);
    size++;
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  public int entry(int i) {
    return entries[i];
  }

  /** The entry number of the last one (the cursor for the next batch). */
  public int lastEntry() {
    return entries[size - 1];
  }

  public IdentityInput kind(int i) {
    return KindCode.kind(kinds[i]);
  }

  int kindCode(int i) {
    return kinds[i];
  }

  public boolean mappedBefore(int i) {
    return mappedBefore[i];
  }

  /** The values as added. */
  public ValueList values() {
    return values;
  }

  public Identifier identifier(int i) {
    return Identifier.of(kind(i), values.text(i));
  }

  /** Whether every entry is of one kind. */
  public boolean oneKind() {
    for (int i = 1; i < size; i++) {
      if (kinds[i] != kinds[0]) {
        return false;
      }
    }
    return true;
  }

  /** The entries at {@code indexes[from, to)}, in that order. */
  public PendingBatch select(int[] indexes, int from, int to) {
    PendingBatch part = new PendingBatch(to - from);
    for (int k = from; k < to; k++) {
      int i = indexes[k];
      part.add(
          entries[i], kinds[i], mappedBefore[i], values.bytes(), values.start(i), values.length(i));
    }
    return part;
  }
}
