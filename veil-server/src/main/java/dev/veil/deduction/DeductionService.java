package dev.veil.deduction;

import dev.veil.audit.AuditLog;
import dev.veil.common.BlankText;
import dev.veil.common.StoreUnavailableException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides every answer of {@code DeductionAdminApi} (docs/spec.md 6.1), and runs the expiry job.
 * Each API method validates its input ({@link DeductionCode#INVALID_ARGUMENT} naming the field),
 * makes at most one store call and returns a {@link DeductionResult}; it never throws for a
 * business outcome, and a store outage becomes {@link DeductionCode#STORAGE_UNAVAILABLE} (logged,
 * without input values). A change's rules (its expected version, its window) are decided inside the
 * store's transaction, on the record as it is then.
 *
 * <p>Writes are durable when a method returns (the store commits first). Nothing is cached: reads
 * go to the store, so every node of a cluster answers with the committed state. Thread-safe;
 * methods block on the store, so call them off network threads.
 */
public final class DeductionService {
  private static final Logger LOG = LoggerFactory.getLogger(DeductionService.class);

  /** Printable ASCII without spaces, 1 to 128 characters. */
  private static final Pattern REQUEST_ID = Pattern.compile("[\\x21-\\x7e]{1,128}");

  /** The latest end of a validity window: 9999-12-31T23:59:59.999Z. */
  public static final long MAX_VALID_UNTIL_MS = 253_402_300_799_999L;

  /** The most records one run of the expiry job closes; the next run takes the rest. */
  static final int EXPIRY_BATCH = 500;

  /** The audit trail's actor for the expiry job (not a client: id 0). */
  private static final AuditLog.Actor EXPIRY =
      new AuditLog.Actor(0, DeductionEvent.EXPIRY_ACTOR, "validity window ended");

  private final DeductionStore store;
  private final AuditLog audit;
  private final Clock clock;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  /**
   * @param audit where the expiry job records what it closes (admin changes are recorded by their
   *     callers)
   */
  public DeductionService(DeductionStore store, AuditLog audit, Clock clock) {
    this.store = store;
    this.audit = audit;
    this.clock = clock;
  }

  /**
   * Records with {@code status}, ordered by id: all of them when {@code pageSize} is 0, otherwise
   * at most {@code pageSize} after the position {@code pageToken} (empty: the start) names, with
   * the token of the next page when more records follow.
   */
  public DeductionResult list(DeductionStatus status, long pageSize, String pageToken) {
    return list(DeductionFilter.status(status), pageSize, pageToken);
  }

  /**
   * Records matching {@code filter}, ordered by id, paged as {@link #list(DeductionStatus, long,
   * String)}.
   */
  public DeductionResult list(DeductionFilter filter, long pageSize, String pageToken) {
    if (filter.payMethodIds().size() > DeductionFilter.MAX_PAY_METHOD_IDS) {
      return DeductionResult.invalid(
          "pay_method_id names more than " + DeductionFilter.MAX_PAY_METHOD_IDS + " pay methods");
    }
    if (filter.payMethodIds().stream().anyMatch(p -> p < 0 || p > Deduction.MAX_ID)) {
      return DeductionResult.invalid("pay_method_id must be between 0 and " + Deduction.MAX_ID);
    }
    if (filter.createdFrom().isPresent()
        && filter.createdBefore().isPresent()
        && !filter.createdFrom().get().isBefore(filter.createdBefore().get())) {
      return DeductionResult.invalid("created_from_ms must be before created_before_ms");
    }
    if (pageSize < 0) {
      return DeductionResult.invalid("page_size must not be negative");
    }
    Optional<Long> afterId = PageToken.parse(pageToken == null ? "" : pageToken);
    if (afterId.isEmpty()) {
      return DeductionResult.invalid("page_token is not a token from a previous page");
    }
    return guarded(
        "list",
        () -> {
          if (pageSize == 0) {
            return DeductionResult.page(store.list(filter, afterId.get(), 0), "");
          }
          // One more than asked tells whether another page follows, without a second query.
          List<Deduction> rows = store.list(filter, afterId.get(), pageSize + 1);
          if (rows.size() <= pageSize) {
            return DeductionResult.page(rows, "");
          }
          List<Deduction> page = rows.subList(0, (int) pageSize);
          return DeductionResult.page(page, PageToken.after(page.get(page.size() - 1).id()));
        });
  }

  /**
   * Creates a NORMAL record and returns it. With a {@code requestId} (empty or null: none) that an
   * earlier create used, returns the record created then, or {@link DeductionCode#INVALID_ARGUMENT}
   * if title, desc or pay method id differ from that create's.
   */
  public DeductionResult create(String title, String desc, long payMethodId, String requestId) {
    return create(title, desc, payMethodId, requestId, 0);
  }

  /**
   * {@link #create(String, String, long, String)} with a validity window that ends at {@code
   * validUntilMs} (milliseconds since the epoch, in the future; 0: no window).
   */
  public DeductionResult create(
      String title, String desc, long payMethodId, String requestId, long validUntilMs) {
    Instant now = now();
    String windowProblem = windowProblem(validUntilMs, now);
    if (windowProblem != null) {
      return DeductionResult.invalid(windowProblem);
    }
    String cleanTitle = title == null ? "" : title.strip();
    String cleanDesc = desc == null ? "" : desc;
    String problem = problemWith(cleanTitle, cleanDesc, payMethodId, requestId);
    if (problem != null) {
      return DeductionResult.invalid(problem);
    }
    NewDeduction draft =
        new NewDeduction(
            cleanTitle,
            cleanDesc,
            payMethodId,
            requestId == null || requestId.isEmpty() ? Optional.empty() : Optional.of(requestId),
            window(validUntilMs));
    return guarded(
        "create",
        () -> {
          DeductionStore.Inserted inserted;
          try {
            inserted = store.insert(draft, now);
          } catch (DeductionCreateException e) {
            LOG.warn("event=deduction_create_failed reason=\"{}\"", e.getMessage());
            return DeductionResult.failure(DeductionCode.CREATE_FAILED);
          }
          if (inserted.created()) {
            changed();
          }
          if (!inserted.created() && !draft.sameFieldsAs(inserted.deduction())) {
            return DeductionResult.invalid("request_id was already used for a different deduction");
          }
          return DeductionResult.of(inserted.deduction());
        });
  }

  /** The record {@code id}, whatever its status; code 2 if there is none. */
  public DeductionResult get(long id) {
    if (id <= 0 || id > Deduction.MAX_ID) {
      return DeductionResult.failure(DeductionCode.RECORD_NOT_FOUND);
    }
    return guarded(
        "get",
        () ->
            store
                .get(id)
                .map(DeductionResult::of)
                .orElseGet(() -> DeductionResult.failure(DeductionCode.RECORD_NOT_FOUND)));
  }

  /**
   * Runs {@code listener} after each change this service commits (on the thread that made it; it
   * must return quickly and not throw).
   */
  public void onChange(Runnable listener) {
    listeners.add(listener);
  }

  private void changed() {
    listeners.forEach(Runnable::run);
  }

  /** Sets record {@code id} to NORMAL (idempotent) and returns it. */
  public DeductionResult open(long id) {
    return open(id, 0, 0);
  }

  /**
   * Sets record {@code id} to NORMAL and returns it; already NORMAL: unchanged (idempotent), unless
   * a new window is given.
   *
   * @param expectedVersion the version the caller read (0: no check); another: {@link
   *     DeductionCode#VERSION_CONFLICT}, nothing changed
   * @param validUntilMs a new end of its validity window, in the future (0: keep the one it has). A
   *     record whose window has ended opens only with a new one.
   */
  public DeductionResult open(long id, long expectedVersion, long validUntilMs) {
    Instant now = now();
    String windowProblem = windowProblem(validUntilMs, now);
    if (windowProblem != null) {
      return DeductionResult.invalid(windowProblem);
    }
    if (expectedVersion < 0) {
      return DeductionResult.invalid("expected_version must not be negative");
    }
    Optional<Instant> newWindow = window(validUntilMs);
    return change(
        "open",
        id,
        now,
        d -> {
          refuseStale(d, expectedVersion);
          Optional<Instant> window = newWindow.isPresent() ? newWindow : d.validUntil();
          if (window.isPresent() && !window.get().isAfter(now)) {
            throw new Refused(
                DeductionResult.invalid(
                    "valid_until_ms: the validity window ended at "
                        + window.get()
                        + "; pass a later valid_until_ms to open the deduction"));
          }
          return d.with(DeductionStatus.NORMAL, window, CloseReason.NONE);
        });
  }

  /** Sets record {@code id} to EXPIRED (idempotent) and returns it. */
  public DeductionResult close(long id) {
    return close(id, 0);
  }

  /**
   * Sets record {@code id} to EXPIRED ({@link CloseReason#MANUAL}) and returns it; already EXPIRED:
   * unchanged (idempotent).
   *
   * @param expectedVersion as for {@link #open(long, long, long)}
   */
  public DeductionResult close(long id, long expectedVersion) {
    if (expectedVersion < 0) {
      return DeductionResult.invalid("expected_version must not be negative");
    }
    return change(
        "close",
        id,
        now(),
        d -> {
          refuseStale(d, expectedVersion);
          return d.status() == DeductionStatus.EXPIRED
              ? d
              : d.with(DeductionStatus.EXPIRED, d.validUntil(), CloseReason.MANUAL);
        });
  }

  /** The change log of record {@code id}, oldest first; code 2 if there is no such record. */
  public DeductionResult history(long id) {
    if (id <= 0 || id > Deduction.MAX_ID) {
      return DeductionResult.failure(DeductionCode.RECORD_NOT_FOUND);
    }
    return guarded(
        "history",
        () -> {
          List<DeductionEvent> events = store.history(id);
          return events.isEmpty()
              ? DeductionResult.failure(DeductionCode.RECORD_NOT_FOUND)
              : DeductionResult.history(events);
        });
  }

  /**
   * At most {@code limit} change log entries after {@code after}, in log order (see {@link
   * DeductionStore#eventsAfter}).
   *
   * @throws StoreUnavailableException if the store cannot be read
   */
  public List<DeductionEvent> eventsAfter(EventPosition after, int limit) {
    return store.eventsAfter(after, limit);
  }

  /**
   * The expiry job: closes ({@link CloseReason#SCHEDULED}) the NORMAL records whose validity window
   * has ended, at most {@value #EXPIRY_BATCH} per run, each in its own transaction with its audit
   * record and log entry. A record opened again with a new window meanwhile stays open. Safe to run
   * on several nodes at once: each record is closed once.
   *
   * @return how many records this run closed
   * @throws StoreUnavailableException if the store cannot be reached
   */
  public int expireDue() {
    Instant now = now();
    int closed = 0;
    for (long id : store.dueToExpire(now, EXPIRY_BATCH)) {
      Optional<DeductionStore.Changed> changed =
          audit.record(
              EXPIRY,
              "ExpireDeduction",
              DeductionAudit.target(id),
              DeductionAudit.expired(),
              () ->
                  store.change(
                      id,
                      d ->
                          d.status() == DeductionStatus.NORMAL
                                  && d.validUntil().isPresent()
                                  && !d.validUntil().get().isAfter(now)
                              ? d.with(
                                  DeductionStatus.EXPIRED, d.validUntil(), CloseReason.SCHEDULED)
                              : d,
                      now),
              c -> c.isPresent() && c.get().changed());
      if (changed.isPresent() && changed.get().changed()) {
        closed++;
      }
    }
    if (closed > 0) {
      changed();
    }
    return closed;
  }

  private static void refuseStale(Deduction d, long expectedVersion) {
    if (expectedVersion != 0 && d.version() != expectedVersion) {
      throw new Refused(DeductionResult.conflict(d.version()));
    }
  }

  private DeductionResult change(
      String operation, long id, Instant now, UnaryOperator<Deduction> decide) {
    if (id <= 0 || id > Deduction.MAX_ID) {
      return DeductionResult.failure(DeductionCode.RECORD_NOT_FOUND);
    }
    return guarded(
        operation,
        () -> {
          try {
            Optional<DeductionStore.Changed> result = store.change(id, decide, now);
            if (result.isEmpty()) {
              return DeductionResult.failure(DeductionCode.RECORD_NOT_FOUND);
            }
            if (result.get().changed()) {
              changed();
            }
            return DeductionResult.of(result.get().deduction());
          } catch (Refused refused) {
            return refused.result();
          }
        });
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  private static Optional<Instant> window(long validUntilMs) {
    return validUntilMs == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(validUntilMs));
  }

  /** What is wrong with a {@code valid_until_ms} (0: none) at {@code now}; null if nothing. */
  private static String windowProblem(long validUntilMs, Instant now) {
    if (validUntilMs == 0) {
      return null;
    }
    if (validUntilMs < 0 || validUntilMs > MAX_VALID_UNTIL_MS) {
      return "valid_until_ms must be 0 (no window) or milliseconds since the epoch up to "
          + MAX_VALID_UNTIL_MS;
    }
    if (validUntilMs <= now.toEpochMilli()) {
      return "valid_until_ms must be in the future";
    }
    return null;
  }

  /** A change refused inside the store's transaction (so nothing is written), with its answer. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final DeductionCode code;
    private final String message;

    Refused(DeductionResult result) {
      super(null, null, false, false);
      this.code = result.code();
      this.message = result.message();
    }

    DeductionResult result() {
      return DeductionResult.failure(code, message);
    }
  }

  /** What is wrong with a create request, in the caller's field names; null if nothing. */
  private static String problemWith(String title, String desc, long payMethodId, String requestId) {
    if (BlankText.isBlank(title)) {
      return "title must not be blank";
    }
    if (title.codePointCount(0, title.length()) > Deduction.MAX_TITLE_LENGTH) {
      return "title must be at most " + Deduction.MAX_TITLE_LENGTH + " characters";
    }
    if (title.chars().anyMatch(Character::isISOControl)) {
      return "title must not contain control characters";
    }
    if (desc.codePointCount(0, desc.length()) > Deduction.MAX_DESC_LENGTH) {
      return "desc must be at most " + Deduction.MAX_DESC_LENGTH + " characters";
    }
    if (desc.chars()
        .anyMatch(c -> Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r')) {
      return "desc must not contain control characters other than tab and line breaks";
    }
    if (payMethodId < 0 || payMethodId > Deduction.MAX_ID) {
      return "pay_method_id must be between 0 and " + Deduction.MAX_ID;
    }
    if (requestId != null && !requestId.isEmpty() && !REQUEST_ID.matcher(requestId).matches()) {
      return "request_id must be 1 to 128 printable ASCII characters without spaces";
    }
    return null;
  }

  private static DeductionResult guarded(String operation, Supplier<DeductionResult> call) {
    try {
      return call.get();
    } catch (StoreUnavailableException e) {
      LOG.warn(
          "event=deduction_store_unavailable operation={} detail=\"{}\"",
          operation,
          e.getMessage());
      return DeductionResult.failure(DeductionCode.STORAGE_UNAVAILABLE);
    }
  }
}
