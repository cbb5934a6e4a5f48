package dev.veil.deduction;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link DeductionService} call decided: a code, the message to show, the records (the one
 * created, opened or closed, or one page of a list), the change log entries of a history, and the
 * token of the next page ({@code ""} when there is none).
 */
public record DeductionResult(
    DeductionCode code,
    String message,
    List<Deduction> records,
    List<DeductionEvent> events,
    String nextPageToken) {
  public DeductionResult {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
    records = List.copyOf(records);
    events = List.copyOf(events);
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
        DeductionCode.SUCCESS, DeductionCode.SUCCESS.message(), records, List.of(), nextPageToken);
  }

  static DeductionResult history(List<DeductionEvent> events) {
    return new DeductionResult(
        DeductionCode.SUCCESS, DeductionCode.SUCCESS.message(), List.of(), events, "");
  }

  static DeductionResult failure(DeductionCode code) {
    return failure(code, code.message());
  }

  static DeductionResult failure(DeductionCode code, String message) {
    return new DeductionResult(code, message, List.of(), List.of(), "");
  }

  /** Code 4 for a malformed field; {@code what} names it (also for adapters that check one). */
  public static DeductionResult invalid(String what) {
    return failure(
        DeductionCode.INVALID_ARGUMENT, DeductionCode.INVALID_ARGUMENT.message() + ": " + what);
  }

  static DeductionResult conflict(long currentVersion) {
    return failure(
        DeductionCode.VERSION_CONFLICT,
        DeductionCode.VERSION_CONFLICT.message()
            + ": the deduction is at version "
            + currentVersion);
  }
}
