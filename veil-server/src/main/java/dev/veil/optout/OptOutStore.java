package dev.veil.optout;

import dev.veil.common.Versioned;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

/** Durable storage of opt-outs. Thread-safe; writes are durable on return. */
public interface OptOutStore {
  /**
   * Records an opt-out; idempotent: a second record for the same hash keeps the first time and
   * returns the stored record.
   */
  Versioned<OptOut> record(byte[] firstLevelHash, Instant optedOutAt);

  Optional<OptOut> find(byte[] firstLevelHash);

  /**
   * Streams the records written after {@code afterSeq} in ascending sequence order without holding
   * them all in memory; returns the highest sequence number passed to {@code sink}, or {@code
   * afterSeq} when there was none.
   */
  long forEachAfter(long afterSeq, Consumer<Versioned<OptOut>> sink);
}
