package dev.veil.sdk.internal.cache;

import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import java.time.Instant;

/**
 * The fields of a {@code MAP} record, and the identifier of an {@code ADD} record, as read from the
 * file.
 */
record StoredMapping(int entry, String advertisingId, String bucketId, long mappedAtMillis) {
  /** Reads the {@code MAP} record the cursor stands on. */
  static StoredMapping read(Records.Cursor c) {
    c.u8();
    int entry = c.varint32();
    long mappedAt = c.int64();
    String advertisingId = c.text(c.varint32());
    String bucketId = c.text(c.varint32());
    return new StoredMapping(entry, advertisingId, bucketId, mappedAt);
  }

  /** The identifier of the {@code ADD} record the cursor stands on. */
  static Identifier identifier(Records.Cursor c) {
    c.u8();
    int kind = c.u8();
    return Identifier.of(KindCode.kind(kind), c.text(c.varint32()));
  }

  CachedMapping toCached(Identifier identifier, boolean stale) {
    return new CachedMapping(
        identifier, advertisingId, bucketId, Instant.ofEpochMilli(mappedAtMillis), stale);
  }
}
