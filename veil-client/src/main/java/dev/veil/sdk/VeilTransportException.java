package dev.veil.sdk;

/**
 * No usable answer arrived: the connection was refused or reset, a timeout passed, the body was
 * cut off or unreadable, or the calling thread was interrupted (then the thread's interrupt flag
 * is set again). Thrown after the configured retries; {@link #getCause()} holds the last failure.
 * The request may or may not have reached the server; every request this client sends is safe to
 * repeat.
 */
public final class VeilTransportException extends VeilClientException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed, without request data
   * @param cause the last underlying failure
   * @param attempts how many times the request was sent
   */
  public VeilTransportException(String message, Throwable cause, int attempts) {
    super(message, cause, attempts);
  }
}
