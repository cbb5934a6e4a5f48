package dev.veil.deduction;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A validated create request: what {@link DeductionService} hands to {@link DeductionStore#insert}.
 *
 * @param requestId the caller's idempotency key, if it sent one
 * @param validUntil the end of the record's validity window, if it has one (millisecond precision)
 */
public record NewDeduction(
    String title,
    String desc,
    long payMethodId,
    Optional<String> requestId,
    Optional<Instant> validUntil) {
  public NewDeduction {
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(desc, "desc");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(validUntil, "validUntil");
  }

  /**
   * Whether {@code stored} was created from the same title, desc, pay method id and validity window
   * as this.
   */
  boolean sameFieldsAs(Deduction stored) {
    return stored.title().equals(title)
        && stored.desc().equals(desc)
        && stored.payMethodId() == payMethodId
        && (stored.version() > 1 || stored.validUntil().equals(validUntil));
  }
}
