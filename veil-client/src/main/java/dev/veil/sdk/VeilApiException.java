package dev.veil.sdk;

/**
 * The server answered with an error: an HTTP status other than 2xx and Veil's error envelope {@code
 * {"status":"<word>","message":"<text>"}}. {@link #httpStatus()} and {@link #status()} say what
 * went wrong; see the error table in docs/api.md. 429 and 503 reach the caller only when every
 * retry was refused too.
 */
public final class VeilApiException extends VeilClientException {
  private static final long serialVersionUID = 1L;

  private final int httpStatus;
  private final String status;
  private final String serverMessage;

  /**
   * @param httpStatus the HTTP status code
   * @param status the envelope's {@code status} word, or {@code unknown} when the body had none
   * @param serverMessage the envelope's {@code message}, or a description of the HTTP status
   * @param attempts how many times the request was sent
   */
  public VeilApiException(int httpStatus, String status, String serverMessage, int attempts) {
    super("HTTP " + httpStatus + " " + status + ": " + serverMessage, null, attempts);
    this.httpStatus = httpStatus;
    this.status = status;
    this.serverMessage = serverMessage;
  }

  /** The HTTP status code, e.g. 401. */
  public int httpStatus() {
    return httpStatus;
  }

  /** Veil's status word, e.g. {@code unauthorized}, {@code clienterror}, {@code unknown}. */
  public String status() {
    return status;
  }

  /** The server's message, e.g. {@code API key lacks the MAPPER role}. */
  public String serverMessage() {
    return serverMessage;
  }

  /** Whether the server asked to try again later (429 rate limit, 503 not ready or store down). */
  public boolean isRetryable() {
    return httpStatus == 429 || httpStatus == 503;
  }
}
