package dev.veil.deduction;

import dev.veil.common.BlankText;
import dev.veil.common.StoreUnavailableException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides every answer of {@code DeductionAdminApi} (docs/spec.md 6.1). Each method validates its
 * input ({@link DeductionCode#INVALID_ARGUMENT} naming the field), makes at most one store call and
 * returns a {@link DeductionResult}; it never throws for a business outcome, and a store outage
 * becomes {@link DeductionCode#STORAGE_UNAVAILABLE} (logged, without input values).
 *
 * <p>Writes are durable when a method returns (the store commits first). Nothing is cached: reads
 * go to the store, so every node of a cluster answers with the committed state. Thread-safe;
 * methods block on the store, so call them off network threads.
 */
public final class DeductionService {
  private static final Logger LOG = LoggerFactory.getLogger(DeductionService.class);

  /** Printable ASCII without spaces, 1 to 128 characters. */
  private static final Pattern REQUEST_ID = Pattern.compile("[\\x21-\\x7e]{1,128}");

  private final DeductionStore store;
  private final Clock clock;

  public DeductionService(DeductionStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /**
   * Records with {@code status}, ordered by id: all of them when {@code pageSize} is 0, otherwise
   * at most {@code pageSize} after the position {@code pageToken} (empty: the start) names, with
   * the token of the next page when more records follow.
   */
  public DeductionResult list(DeductionStatus status, long pageSize, String pageToken) {
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
            return DeductionResult.page(store.list(status, afterId.get(), 0), "");
          }
          // One more than asked tells whether another page follows, without a second query.
          List<Deduction> rows = store.list(status, afterId.get(), pageSize + 1);
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
            requestId == null || requestId.isEmpty() ? Optional.empty() : Optional.of(requestId));
    return guarded(
        "create",
        () -> {
          DeductionStore.Inserted inserted;
          try {
            inserted = store.insert(draft, clock.instant());
          } catch (DeductionCreateException e) {
            LOG.warn("event=deduction_create_failed reason=\"{}\"", e.getMessage());
            return DeductionResult.failure(DeductionCode.CREATE_FAILED);
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

  /** Sets record {@code id} to NORMAL (idempotent) and returns it. */
  public DeductionResult open(long id) {
    return setStatus(id, DeductionStatus.NORMAL);
  }

  /** Sets record {@code id} to EXPIRED (idempotent) and returns it. */
  public DeductionResult close(long id) {
    return setStatus(id, DeductionStatus.EXPIRED);
  }

  private DeductionResult setStatus(long id, DeductionStatus status) {
    if (id <= 0 || id > Deduction.MAX_ID) {
      return DeductionResult.failure(DeductionCode.RECORD_NOT_FOUND);
    }
    return guarded(
        status == DeductionStatus.NORMAL ? "open" : "close",
        () ->
            store
                .setStatus(id, status, clock.instant())
                .map(DeductionResult::of)
                .orElseGet(() -> DeductionResult.failure(DeductionCode.RECORD_NOT_FOUND)));
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
