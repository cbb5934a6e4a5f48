package dev.veil.optout;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * Opt-outs (docs/spec.md section 4): records them durably, answers "has this identity opted out?"
 * from memory, and catches up with opt-outs other nodes took.
 *
 * <p>{@link #isOptedOut} is lock-free and allocation-free. {@link #record} blocks on the store:
 * call it off the event loop. It returns only after the record is durable, then adds it to memory.
 */
public final class OptOutService {
  private final OptOutStore store;
  private final Clock clock;
  private final OptOutIndex index = new OptOutIndex();
  private final LongAdder recorded = new LongAdder();
  private ChangeCursor cursor = ChangeCursor.START;

  public OptOutService(OptOutStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  public boolean isOptedOut(byte[] firstLevelHash) {
    return index.contains(firstLevelHash);
  }

  /** Records an opt-out (idempotent) and returns the time of the stored record. */
  public Instant record(byte[] firstLevelHash) {
    Versioned<OptOut> stored = store.record(firstLevelHash, clock.instant());
    index.add(firstLevelHash);
    recorded.increment();
    return stored.value().optedOutAt();
  }

  /**
   * Opt-outs {@link #record}ed through this service since it was created, a repeat of an earlier
   * opt-out included (what {@code veil_optouts_recorded_total} reports); not those caught up from
   * other nodes.
   */
  public long recordedCount() {
    return recorded.sum();
  }

  /** The stored opt-out time of an identity, if it opted out (reads the store). */
  public Optional<Instant> lookup(byte[] firstLevelHash) {
    return store.find(firstLevelHash).map(OptOut::optedOutAt);
  }

  /**
   * Loads opt-outs written since the last call; streams, so millions of records are fine. Adding a
   * record the index holds already changes nothing.
   */
  public synchronized void catchUp() {
    cursor = store.forEachChange(cursor, v -> index.add(v.value().firstLevelHash()));
  }

  public int size() {
    return index.size();
  }

  public OptOutIndex index() {
    return index;
  }
}
