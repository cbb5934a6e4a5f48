package dev.veil.common;

/**
 * The store could not be reached or refused a write. Callers answer 503 (HTTP) or code 1 (gRPC);
 * the server keeps serving reads from memory.
 */
public final class StoreUnavailableException extends RuntimeException {
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
