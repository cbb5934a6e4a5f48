package dev.veil.deduction;

/**
 * The store is reachable but cannot create the record (every id a client can address is taken).
 * Nothing was written. {@link DeductionService} answers it with {@link
 * DeductionCode#CREATE_FAILED}.
 */
public final class DeductionCreateException extends RuntimeException {
  public DeductionCreateException(String message) {
    super(message, null, false, false);
  }
}
