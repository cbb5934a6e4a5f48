package dev.veil.client;

/**
 * What the server keeps of an API key: its public key id, a random salt and SHA-256(salt ||
 * secret). The key itself is never stored.
 */
@SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
public record ApiKeyDigest(String keyId, byte[] salt, byte[] hash) {}
