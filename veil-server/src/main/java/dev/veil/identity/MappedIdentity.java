package dev.veil.identity;

/**
 * The result of mapping one identity: its secret first-level hash (never leaves the server except
 * inside encrypted refresh tokens), its bucket, and its current advertising id (32 bytes).
 */
public record MappedIdentity(byte[] firstLevelHash, int bucketIndex, String bucketId, byte[] advertisingId) {}
