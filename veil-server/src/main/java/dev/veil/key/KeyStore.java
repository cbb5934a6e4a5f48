package dev.veil.key;

import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import java.time.Instant;
import java.util.List;

/** Durable storage of encryption keys. Thread-safe; writes are durable on return. */
public interface KeyStore {
  /** Keys written after {@code afterSeq}, in ascending sequence order. */
  List<Versioned<EncryptionKey>> keysAfter(long afterSeq);

  /** Inserts a new key; the store assigns its id (unique, positive) and sequence number. */
  Versioned<EncryptionKey> insert(int siteId, Instant created, Instant activates, Instant expires, byte[] secret);
}
