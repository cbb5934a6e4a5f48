package dev.veil.deduction;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable storage of deductions. Implementations are thread-safe, every write is one atomic change
 * that is durable when the method returns, and a store that cannot be reached throws {@link
 * dev.veil.common.StoreUnavailableException}.
 */
public interface DeductionStore {
  /** The result of {@link #insert}: the stored record and whether this call created it. */
  record Inserted(Deduction deduction, boolean created) {}

  /**
   * Creates a NORMAL record with a new id, created and updated at {@code now} (to the millisecond).
   * If {@code draft} has a request id that an earlier insert used, creates nothing and returns that
   * earlier record with {@code created == false}; this holds also for concurrent inserts on other
   * nodes.
   *
   * @throws DeductionCreateException if the record cannot be created although the store is
   *     reachable (every id up to {@link Deduction#MAX_ID} is taken); nothing is written
   */
  Inserted insert(NewDeduction draft, Instant now);

  /**
   * Sets the status of record {@code id} in one atomic step. {@code updated} becomes {@code now}
   * only if the status changes; a record already in {@code status} is returned unchanged.
   *
   * @return the record as this call left it (its status is {@code status}); empty if there is no
   *     record {@code id}
   */
  Optional<Deduction> setStatus(long id, DeductionStatus status, Instant now);

  /**
   * Records with {@code status} and an id greater than {@code afterId}, in ascending id order, at
   * most {@code limit} of them ({@code 0}: no limit).
   */
  List<Deduction> list(DeductionStatus status, long afterId, long limit);

  /** The record {@code id}, whatever its status. */
  Optional<Deduction> get(long id);
}
