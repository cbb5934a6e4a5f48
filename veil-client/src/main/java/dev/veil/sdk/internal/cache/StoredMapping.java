package dev.veil.sdk.internal.cache;

import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import java.time.Instant;

/**
 * The fields of a {@code MAP} record, and the identifier of an {@code ADD} record, as read from the
 * file.
 */
record StoredMapping(
    int entry,
    String advertisingId,
    String bucketId,
    long mappedAtMillis,
    String previousAdvertisingId,
    long refreshFromMillis) {
  /**
   * Reads the {@code MAP} or {@code MAP3} record the cursor stands on. A {@code MAP} record has no
   * previous id and no refresh time (null, 0); a {@code MAP3} record no bucket id (null), and its
   * previous id is null when the record's is empty.
   */
  static StoredMapping read(Records.Cursor c) {
    boolean v3 = c.u8() == Records.MAP3;
    int entry = c.varint32();
    long mappedAt = c.int64();
    long refreshFrom = v3 ? c.int64() : 0;
    String advertisingId = c.text(c.varint32());
    String second = c.text(c.varint32());
    return v3
        ? new StoredMapping(
            entry, advertisingId, null, mappedAt, second.isEmpty() ? null : second, refreshFrom)
        : new StoredMapping(entry, advertisingId, second, mappedAt, null, 0);
  }

  /** The identifier of the {@code ADD} record the cursor stands on. */
  static Identifier identifier(Records.Cursor c) {
    c.u8();
    int kind = c.u8();
    return Identifier.of(KindCode.kind(kind), c.text(c.varint32()));
  }

  CachedMapping toCached(Identifier identifier, boolean stale) {
    return new CachedMapping(
        identifier,
        advertisingId,
        bucketId,
        Instant.ofEpochMilli(mappedAtMillis),
        stale,
        previousAdvertisingId,
        refreshFromMillis == 0 ? null : Instant.ofEpochMilli(refreshFromMillis));
  }
}
