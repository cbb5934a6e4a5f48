package dev.veil.deduction;

/**
 * The outcome codes of {@code DeductionAdminApi} (docs/spec.md 6.1), with their wire numbers and
 * messages. A call succeeded exactly when its code is {@link #SUCCESS}.
 */
public enum DeductionCode {
  SUCCESS(0, "success"),
  /** The store could not be reached; nothing was changed and the call may be retried. */
  STORAGE_UNAVAILABLE(1, "storage unavailable"),
  /** No record has the id (an id of 0 never exists). */
  RECORD_NOT_FOUND(2, "record not found"),
  /** The store is reachable but refused to create the record. */
  CREATE_FAILED(3, "create failed"),
  /** A field is missing or malformed; the message names it ({@code invalid argument: <what>}). */
  INVALID_ARGUMENT(4, "invalid argument"),
  /**
   * The caller passed an {@code expected_version} the record no longer has: someone changed it
   * since the caller read it. Nothing was changed; the message names the current version ({@code
   * version conflict: the deduction is at version <n>}). Read it again and decide anew.
   */
  VERSION_CONFLICT(5, "version conflict");

  private final int number;
  private final String message;

  DeductionCode(int number, String message) {
    this.number = number;
    this.message = message;
  }

  /** The value of {@code DeductionResp.code}. */
  public int number() {
    return number;
  }

  /**
   * The value of {@code DeductionResp.message} (for {@link #INVALID_ARGUMENT} and {@link
   * #VERSION_CONFLICT}, its prefix).
   */
  public String message() {
    return message;
  }
}
