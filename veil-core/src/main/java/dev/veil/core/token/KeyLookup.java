package dev.veil.core.token;

/** Finds a key by id, for decryption. Implementations are immutable snapshots or thread-safe. */
@FunctionalInterface
public interface KeyLookup {
  /** The key with this id, or {@code null} when it is unknown. */
  EncryptionKey byId(int keyId);
}
