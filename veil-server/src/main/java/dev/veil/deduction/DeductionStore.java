package dev.veil.deduction;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Durable storage of deductions and of their change log. Implementations are thread-safe, every
 * write is one atomic change that is durable when the method returns and appends the log entry of
 * each change it makes in the same transaction, and a store that cannot be reached throws {@link
 * dev.veil.common.StoreUnavailableException}.
 *
 * <p>A log entry's actor is the name of the client whose admin change is being recorded on the
 * calling thread ({@link dev.veil.audit.AuditLog#actorName()}; the expiry job is recorded as {@link
 * DeductionEvent#EXPIRY_ACTOR}), else empty.
 */
public interface DeductionStore {
  /** The result of {@link #insert}: the stored record and whether this call created it. */
  record Inserted(Deduction deduction, boolean created) {}

  /** The result of {@link #change}: the record as the call left it and whether it changed it. */
  record Changed(Deduction deduction, boolean changed) {}

  /**
   * Creates a NORMAL record, version 1, with a new id, created and updated at {@code now} (to the
   * millisecond), and logs it. If {@code draft} has a request id that an earlier insert used,
   * creates nothing and returns that earlier record with {@code created == false}; this holds also
   * for concurrent inserts on other nodes.
   *
   * @throws DeductionCreateException if the record cannot be created although the store is
   *     reachable (every id up to {@link Deduction#MAX_ID} is taken); nothing is written
   */
  Inserted insert(NewDeduction draft, Instant now);

  /**
   * Changes record {@code id} in one transaction: reads it, holding it against concurrent changes
   * on every node, and asks {@code decide} what it becomes (the record itself, or one with another
   * status, window or close reason). If that differs from the record's state, stores it as {@link
   * Deduction#nextVersion} at {@code now} and logs the change.
   *
   * @return the record as this call left it; empty if there is no record {@code id}
   * @throws RuntimeException whatever {@code decide} throws, unchanged; nothing is written
   */
  Optional<Changed> change(long id, UnaryOperator<Deduction> decide, Instant now);

  /**
   * Opens ({@link DeductionStatus#NORMAL}) or closes by hand ({@link DeductionStatus#EXPIRED})
   * record {@code id} through {@link #change}, without a version check or a window rule.
   *
   * @return the record as this call left it; empty if there is no record {@code id}
   */
  default Optional<Deduction> setStatus(long id, DeductionStatus status, Instant now) {
    return change(id, d -> d.withStatus(status, now), now).map(Changed::deduction);
  }

  /**
   * Records matching {@code filter} with an id greater than {@code afterId}, in ascending id order,
   * at most {@code limit} of them ({@code 0}: no limit).
   */
  List<Deduction> list(DeductionFilter filter, long afterId, long limit);

  /** The record {@code id}, whatever its status. */
  Optional<Deduction> get(long id);

  /**
   * Ids of NORMAL records whose validity window ended at or before {@code now}, ascending, at most
   * {@code limit}.
   */
  List<Long> dueToExpire(Instant now, int limit);

  /** The log entries of record {@code id}, oldest first; empty if there is none. */
  List<DeductionEvent> history(long id);

  /**
   * At most {@code limit} log entries after {@code after}, in log order. Entries only ever appear
   * at the end of that order: an entry committed later, on any node, comes after every entry this
   * call returns, so a reader that continues from the last position it was given misses none.
   */
  List<DeductionEvent> eventsAfter(EventPosition after, int limit);
}
