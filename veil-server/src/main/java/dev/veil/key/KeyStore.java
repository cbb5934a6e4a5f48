package dev.veil.key;

import dev.veil.common.ChangeFeed;
import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import java.time.Instant;

/**
 * Durable storage of encryption keys; its {@link ChangeFeed} delivers keys written by any node.
 * Thread-safe; writes are durable on return.
 */
public interface KeyStore extends ChangeFeed<EncryptionKey> {
  /**
   * The key a {@link #insert} left in the store: the new key ({@code created}), or the key that had
   * already succeeded the same predecessor (not {@code created}; nothing was written).
   */
  record Inserted(Versioned<EncryptionKey> key, boolean created) {}

  /**
   * Inserts the next key of keyset {@code siteId}, the successor of key {@code predecessorId} (0:
   * the keyset's first key). At most one key ever succeeds a given predecessor in a keyset, so a
   * rotation decided twice from the same state (by two nodes, or by a node that resumes after a
   * pause) creates one key. The store assigns the id (unique, positive) and the sequence number.
   */
  Inserted insert(
      int siteId,
      int predecessorId,
      Instant created,
      Instant activates,
      Instant expires,
      byte[] secret);
}
