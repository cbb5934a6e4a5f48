package dev.veil.sdk;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a {@link MappingCache}: a data collector's mapping record (identifier, advertising
 * id, bucket id) with the time it was mapped.
 *
 * @param identifier as added
 * @param advertisingId standard base64 of 32 bytes
 * @param bucketId the salt bucket (fixed for the identity)
 * @param mappedAt when the advertising id was obtained (the client's clock, just before the
 *     request)
 * @param stale whether the bucket rotated since and the entry waits to be mapped again (its
 *     advertising id is the previous one until then)
 */
public record CachedMapping(
    Identifier identifier, String advertisingId, String bucketId, Instant mappedAt, boolean stale) {
  /** Checks the fields: none of the references may be null. */
  public CachedMapping {
    Objects.requireNonNull(identifier, "identifier");
    Objects.requireNonNull(advertisingId, "advertisingId");
    Objects.requireNonNull(bucketId, "bucketId");
    Objects.requireNonNull(mappedAt, "mappedAt");
  }
}
