package dev.veil.identity;

/**
 * The result of mapping one identity: its secret first-level hash (never leaves the server except
 * inside encrypted refresh tokens), its bucket, and its current advertising id (32 bytes). The
 * bucket's public id comes from {@link IdentityMapper#bucketId} when an answer shows it.
 */
@SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
public record MappedIdentity(byte[] firstLevelHash, int bucketIndex, byte[] advertisingId) {}
