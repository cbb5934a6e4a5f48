package dev.veil.audit;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Records admin changes in the audit trail and lists them.
 *
 * <p>{@link #record} runs a change with its event pending on the calling thread (as {@link
 * dev.veil.common.Deadline} is). The store's write transaction appends a pending event before it
 * commits ({@link #appendPendingIn}), so the first transaction the change commits carries its
 * record: both are stored, or neither. A change that commits nothing (an idempotent repeat, a store
 * without SQL transactions) gets its record appended on its own once it has returned. A change that
 * fails gets none, unless a transaction of it had already committed: then the record tells of a
 * change that was partly made, which it was. A change that creates something is about the id its
 * store assigns ({@link #recordCreation}, {@link #assignedId}).
 *
 * <p>Thread-safe; the pending event belongs to the thread that called {@link #record}.
 */
public final class AuditLog {
  /** Longest reason kept, in code points. */
  public static final int MAX_REASON_LENGTH = 256;

  private static final ThreadLocal<Pending> PENDING = new ThreadLocal<>();

  /**
   * The reason a caller gave, as it is recorded: stripped of surrounding white space; empty for
   * none.
   *
   * @throws IllegalArgumentException naming the rule broken (a message for the caller, without the
   *     reason): more than {@value #MAX_REASON_LENGTH} code points, or a control character
   */
  public static String checkedReason(String reason) {
    if (reason == null) {
      return "";
    }
    if (reason.codePointCount(0, reason.length()) > MAX_REASON_LENGTH) {
      throw new IllegalArgumentException("at most " + MAX_REASON_LENGTH + " characters");
    }
    if (reason.codePoints().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException("no control characters");
    }
    return reason.strip();
  }

  /** Who is acting, and why (the reason may be empty). */
  public record Actor(long id, String name, String reason) {}

  private static final class Pending {
    final AuditStore store;
    final Actor actor;
    final Instant at;
    final String action;
    String target;
    String kind;
    boolean unchangedByThisTransaction;
    final String details;
    boolean written;

    Pending(
        AuditStore store, Actor actor, Instant at, String action, String target, String details) {
      this.store = store;
      this.actor = actor;
      this.at = at;
      this.action = action;
      this.target = target;
      this.details = details;
    }

    AuditEvent event() {
      return new AuditEvent(
          0,
          at,
          actor.id(),
          actor.name(),
          action,
          target == null ? "" : target,
          details,
          actor.reason());
    }
  }

  private final AuditStore store;
  private final Clock clock;

  public AuditLog(AuditStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /** {@link #record}, the target given or ({@code null}) made of {@code kind} and an id. */
  private <T> T record(
      Actor actor,
      String action,
      String target,
      String kind,
      String details,
      Supplier<T> change,
      Predicate<? super T> done) {
    if (PENDING.get() != null) {
      throw new IllegalStateException("a recorded change is already running on this thread");
    }
    Pending pending =
        new Pending(
            store, actor, clock.instant().truncatedTo(ChronoUnit.MILLIS), action, target, details);
    pending.kind = kind;
    PENDING.set(pending);
    T result;
    try {
      result = change.get();
    } finally {
      PENDING.remove();
    }
    if (!pending.written && done.test(result)) {
      store.append(pending.event());
    }
    return result;
  }

  /**
   * {@link #record} for a change that creates something whose id the store assigns: the target is
   * {@code <kind> <id>}, told by the store ({@link #assignedId}).
   */
  public <T> T recordCreation(
      Actor actor, String action, String kind, String details, Supplier<T> change) {
    return record(actor, action, null, kind, details, change, result -> true);
  }

  /** {@link #recordCreation} for a change that reports a refusal in its result ({@code done}). */
  public <T> T recordCreation(
      Actor actor,
      String action,
      String kind,
      String details,
      Supplier<T> change,
      Predicate<? super T> done) {
    return record(actor, action, null, kind, details, change, done);
  }

  /**
   * Runs {@code change} and records it: {@code actor} did {@code action} to {@code target}, setting
   * {@code details} (a JSON object).
   *
   * @return what {@code change} returned
   * @throws IllegalStateException if called from inside another recorded change
   */
  public <T> T record(
      Actor actor, String action, String target, String details, Supplier<T> change) {
    return record(actor, action, target, null, details, change, result -> true);
  }

  /**
   * {@link #record} for a change that reports a refusal in its result rather than by throwing:
   * {@code done} tells whether it was made. A refused change that committed nothing gets no record.
   */
  public <T> T record(
      Actor actor,
      String action,
      String target,
      String details,
      Supplier<T> change,
      Predicate<? super T> done) {
    return record(actor, action, target, null, details, change, done);
  }

  /** {@link #record} for a change without a result. */
  public void record(Actor actor, String action, String target, String details, Runnable change) {
    record(
        actor,
        action,
        target,
        details,
        () -> {
          change.run();
          return null;
        });
  }

  /** Up to {@code limit} records matching {@code filter}, newest first. */
  public List<AuditEvent> list(AuditFilter filter, int limit) {
    return store.list(filter, limit);
  }

  /** The name of the actor whose change is being recorded on this thread, if one is. */
  public static Optional<String> actorName() {
    Pending pending = PENDING.get();
    return pending == null ? Optional.empty() : Optional.of(pending.actor.name());
  }

  /**
   * Tells the change being recorded on this thread the id a store has just assigned to what it
   * creates: a change recorded with a {@code null} target is then about {@code <kind> <id>}, its
   * kind being the action's object ({@link #record}'s {@code kind}). The first id told counts;
   * nothing happens when no change is being recorded.
   */
  public static void assignedId(long id) {
    Pending pending = PENDING.get();
    if (pending != null && pending.target == null) {
      pending.target = pending.kind + " " + id;
    }
  }

  /**
   * Tells the change being recorded on this thread that the current write transaction changed
   * nothing (an update that matched no row), so that it does not carry the record. Nothing happens
   * when no change is being recorded.
   */
  public static void nothingChanged() {
    Pending pending = PENDING.get();
    if (pending != null) {
      pending.unchangedByThisTransaction = true;
    }
  }

  /**
   * Called by a store's write transaction just before it commits: appends the event of the change
   * being recorded on this thread, unless an earlier transaction of the change carried it.
   *
   * @return whether an event was appended; if so, the caller calls {@link #committed()} once the
   *     transaction has committed
   * @throws SQLException as the append does; the caller rolls back
   */
  public static boolean appendPendingIn(Connection connection) throws SQLException {
    Pending pending = PENDING.get();
    if (pending == null || pending.written) {
      return false;
    }
    if (pending.unchangedByThisTransaction) {
      pending.unchangedByThisTransaction = false;
      return false;
    }
    pending.store.appendIn(connection, pending.event());
    return true;
  }

  /** The transaction that {@link #appendPendingIn} appended to has committed. */
  public static void committed() {
    Pending pending = PENDING.get();
    if (pending != null) {
      pending.written = true;
    }
  }
}
