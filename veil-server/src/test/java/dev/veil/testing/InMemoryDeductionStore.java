package dev.veil.testing;

import dev.veil.audit.AuditLog;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionCreateException;
import dev.veil.deduction.DeductionEvent;
import dev.veil.deduction.DeductionFilter;
import dev.veil.deduction.DeductionStatus;
import dev.veil.deduction.DeductionStore;
import dev.veil.deduction.EventPosition;
import dev.veil.deduction.NewDeduction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * {@link DeductionStore} in memory, with the contract of the JDBC store (ids from 1, never reused;
 * request ids unique; times to the millisecond; a change log in seq order). {@code beforeEachCall}
 * runs first in every method (an outage check that throws, for instance). {@link #exhaustIds()}
 * makes every later insert fail as a full id space would. Thread-safe (one monitor).
 */
public final class InMemoryDeductionStore implements DeductionStore {
  private final Runnable beforeEachCall;
  private final TreeMap<Long, Deduction> rows = new TreeMap<>();
  private final Map<String, Long> byRequestId = new HashMap<>();
  private final List<DeductionEvent> log = new ArrayList<>();
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
        Deduction.created(
            ++lastId, draft.title(), draft.desc(), draft.payMethodId(), at, draft.validUntil());
    rows.put(created.id(), created);
    AuditLog.assignedId(created.id());
    draft.requestId().ifPresent(r -> byRequestId.put(r, created.id()));
    append(DeductionEvent.Kind.CREATED, created);
    return new Inserted(created, true);
  }

  private void append(DeductionEvent.Kind kind, Deduction d) {
    log.add(
        new DeductionEvent(
            new EventPosition(0, log.size() + 1L),
            kind,
            d,
            d.updated(),
            AuditLog.actorName().orElse("")));
  }

  @Override
  public synchronized Optional<Deduction> get(long id) {
    beforeEachCall.run();
    return Optional.ofNullable(rows.get(id));
  }

  @Override
  public synchronized Optional<Changed> change(
      long id, UnaryOperator<Deduction> decide, Instant now) {
    beforeEachCall.run();
    Deduction before = rows.get(id);
    if (before == null) {
      return Optional.empty();
    }
    Deduction decided = decide.apply(before);
    if (decided.sameStateAs(before)) {
      return Optional.of(new Changed(before, false));
    }
    Deduction after = before.nextVersion(decided, Instant.ofEpochMilli(now.toEpochMilli()));
    rows.put(id, after);
    append(DeductionEvent.Kind.between(before, after), after);
    return Optional.of(new Changed(after, true));
  }

  @Override
  public synchronized List<Deduction> list(DeductionFilter filter, long afterId, long limit) {
    beforeEachCall.run();
    return rows.tailMap(afterId, false).values().stream()
        .filter(filter::matches)
        .limit(limit == 0 ? Long.MAX_VALUE : limit)
        .toList();
  }

  @Override
  public synchronized List<Long> dueToExpire(Instant now, int limit) {
    beforeEachCall.run();
    return rows.values().stream()
        .filter(d -> d.status() == DeductionStatus.NORMAL)
        .filter(d -> d.validUntil().map(v -> !v.isAfter(now)).orElse(false))
        .map(Deduction::id)
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized List<DeductionEvent> history(long id) {
    beforeEachCall.run();
    return log.stream().filter(e -> e.deduction().id() == id).toList();
  }

  @Override
  public synchronized List<DeductionEvent> eventsAfter(EventPosition after, int limit) {
    beforeEachCall.run();
    return log.stream().filter(e -> e.position().compareTo(after) > 0).limit(limit).toList();
  }
}
