package dev.veil.deduction;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link DeductionService} call decided: a code, the message to show, the records (the one
 * created, opened or closed, or one page of a list) and the token of the next page ({@code ""} when
 * there is none).
 */
public record DeductionResult(
    DeductionCode code, String message, List<Deduction> records, String nextPageToken) {
  public DeductionResult {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
    records = List.copyOf(records);
    Objects.requireNonNull(nextPageToken, "nextPageToken");
  }

  public boolean success() {
    return code == DeductionCode.SUCCESS;
  }

  static DeductionResult of(Deduction record) {
    return page(List.of(record), "");
  }

  static DeductionResult page(List<Deduction> records, String nextPageToken) {
    return new DeductionResult(
        DeductionCode.SUCCESS, DeductionCode.SUCCESS.message(), records, nextPageToken);
  }

  static DeductionResult failure(DeductionCode code) {
    return new DeductionResult(code, code.message(), List.of(), "");
  }

  static DeductionResult invalid(String what) {
    return new DeductionResult(
        DeductionCode.INVALID_ARGUMENT,
        DeductionCode.INVALID_ARGUMENT.message() + ": " + what,
        List.of(),
        "");
  }
}
