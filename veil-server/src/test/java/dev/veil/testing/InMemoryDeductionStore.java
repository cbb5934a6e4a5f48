package dev.veil.testing;

import dev.veil.audit.AuditLog;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionCreateException;
import dev.veil.deduction.DeductionStatus;
import dev.veil.deduction.DeductionStore;
import dev.veil.deduction.NewDeduction;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@link DeductionStore} in memory, with the contract of the JDBC store (ids from 1, never reused;
 * request ids unique; times to the millisecond). {@code beforeEachCall} runs first in every method
 * (an outage check that throws, for instance). {@link #exhaustIds()} makes every later insert fail
 * as a full id space would. Thread-safe (one monitor).
 */
public final class InMemoryDeductionStore implements DeductionStore {
  private final Runnable beforeEachCall;
  private final TreeMap<Long, Deduction> rows = new TreeMap<>();
  private final Map<String, Long> byRequestId = new HashMap<>();
  private long lastId;

  public InMemoryDeductionStore(Runnable beforeEachCall) {
    this.beforeEachCall = beforeEachCall;
  }

  public InMemoryDeductionStore() {
    this(() -> {});
  }

  /** From now on ids are past {@link Deduction#MAX_ID}, so inserts fail. */
  public synchronized void exhaustIds() {
    lastId = Math.max(lastId, Deduction.MAX_ID);
  }

  @Override
  public synchronized Inserted insert(NewDeduction draft, Instant now) {
    beforeEachCall.run();
    Optional<Long> earlier = draft.requestId().map(byRequestId::get);
    if (earlier.isPresent()) {
      AuditLog.assignedId(earlier.get());
      return new Inserted(rows.get(earlier.get()), false);
    }
    if (lastId >= Deduction.MAX_ID) {
      throw new DeductionCreateException(
          "every deduction id up to " + Deduction.MAX_ID + " is taken");
    }
    Instant at = Instant.ofEpochMilli(now.toEpochMilli());
    Deduction created =
        new Deduction(
            ++lastId,
            draft.title(),
            draft.desc(),
            draft.payMethodId(),
            DeductionStatus.NORMAL,
            at,
            at);
    rows.put(created.id(), created);
    AuditLog.assignedId(created.id());
    draft.requestId().ifPresent(r -> byRequestId.put(r, created.id()));
    return new Inserted(created, true);
  }

  @Override
  public synchronized Optional<Deduction> get(long id) {
    beforeEachCall.run();
    return Optional.ofNullable(rows.get(id));
  }

  @Override
  public synchronized Optional<Deduction> setStatus(long id, DeductionStatus status, Instant now) {
    beforeEachCall.run();
    Deduction current = rows.get(id);
    if (current == null) {
      return Optional.empty();
    }
    if (current.status() != status) {
      current = current.withStatus(status, Instant.ofEpochMilli(now.toEpochMilli()));
      rows.put(id, current);
    }
    return Optional.of(current);
  }

  @Override
  public synchronized List<Deduction> list(DeductionStatus status, long afterId, long limit) {
    beforeEachCall.run();
    return rows.tailMap(afterId, false).values().stream()
        .filter(d -> d.status() == status)
        .limit(limit == 0 ? Long.MAX_VALUE : limit)
        .toList();
  }
}
