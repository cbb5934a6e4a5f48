package dev.veil.sdk;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a {@link MappingCache}: a data collector's mapping record (identifier, advertising
 * id, bucket id) with the time it was mapped.
 *
 * @param identifier as added
 * @param advertisingId standard base64 of 32 bytes
 * @param bucketId the salt bucket (fixed for the identity); null when mapped over v3, which names
 *     no buckets
 * @param mappedAt when the advertising id was obtained (the client's clock, just before the
 *     request)
 * @param stale whether the entry waits to be mapped again (its bucket rotated, or its refresh time
 *     passed; its advertising id is the previous one until then)
 * @param previousAdvertisingId over v3: the id under the bucket's previous salt, when the bucket
 *     rotated within the last 90 days; null otherwise (and always over v1)
 * @param refreshFrom over v3: when to map the entry again (a refresh does it then); null over v1
 */
public record CachedMapping(
    Identifier identifier,
    String advertisingId,
    String bucketId,
    Instant mappedAt,
    boolean stale,
    String previousAdvertisingId,
    Instant refreshFrom) {
  /** Checks the fields: identifier, advertising id and time are required. */
  public CachedMapping {
    Objects.requireNonNull(identifier, "identifier");
    Objects.requireNonNull(advertisingId, "advertisingId");
    Objects.requireNonNull(mappedAt, "mappedAt");
    if (bucketId == null && refreshFrom == null) {
      throw new NullPointerException("bucketId (v1) or refreshFrom (v3) is required");
    }
  }

  /** A mapping over v1: with its bucket id, without previous id or refresh time. */
  public CachedMapping(
      Identifier identifier,
      String advertisingId,
      String bucketId,
      Instant mappedAt,
      boolean stale) {
    this(
        identifier,
        advertisingId,
        Objects.requireNonNull(bucketId, "bucketId"),
        mappedAt,
        stale,
        null,
        null);
  }
}
