package dev.veil.optout;

import dev.veil.common.ChangeFeed;
import dev.veil.common.Versioned;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable storage of opt-outs; its {@link ChangeFeed} delivers opt-outs recorded by any node
 * (streamed: millions of records need no large buffer). Thread-safe; writes are durable on return.
 */
public interface OptOutStore extends ChangeFeed<OptOut> {
  /**
   * Records an opt-out; idempotent: a second record for the same hash keeps the first time and
   * returns the stored record.
   */
  Versioned<OptOut> record(byte[] firstLevelHash, Instant optedOutAt);

  Optional<OptOut> find(byte[] firstLevelHash);

  /**
   * The records whose first-level hash begins with {@code prefix} (1 to 32 bytes), in any order;
   * how {@code POST /v2/optout/status} confirms the few candidates its in-memory index names.
   */
  List<OptOut> findByPrefix(byte[] prefix);
}
