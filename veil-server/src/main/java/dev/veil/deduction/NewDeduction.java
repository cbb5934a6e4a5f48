package dev.veil.deduction;

import java.util.Objects;
import java.util.Optional;

/**
 * A validated create request: what {@link DeductionService} hands to {@link DeductionStore#insert}.
 *
 * @param requestId the caller's idempotency key, if it sent one
 */
public record NewDeduction(
    String title, String desc, long payMethodId, Optional<String> requestId) {
  public NewDeduction {
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(desc, "desc");
    Objects.requireNonNull(requestId, "requestId");
  }

  /** Whether {@code stored} was created from the same title, desc and pay method id as this. */
  boolean sameFieldsAs(Deduction stored) {
    return stored.title().equals(title)
        && stored.desc().equals(desc)
        && stored.payMethodId() == payMethodId;
  }
}
