package dev.veil.sdk;

/**
 * No usable answer arrived: the connection was refused or reset, a timeout passed, the body was cut
 * off or unreadable, or the calling thread was interrupted (then the thread's interrupt flag is set
 * again, and no retry follows). Thrown after the configured retries; {@link #getCause()} holds the
 * last failure. An interrupt ends a wait between attempts at once; a wait for an answer on the
 * client's own connections ends when the answer comes or the request timeout passes (a JDK socket
 * does not look at interrupts; with {@link VeilClient.Builder#httpClient} the JDK's client ends it
 * at once). The request may or may not have reached the server; every request this client sends is
 * safe to repeat.
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
