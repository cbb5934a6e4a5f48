package dev.veil.common;

/**
 * A request that must be refused. Carries the {@link ErrorCode} and a message that is safe to show
 * the caller (it never contains PII, tokens or secrets unless the specification demands the echo,
 * as for {@code Invalid Token presented <token>}).
 */
public final class VeilException extends RuntimeException {
  private final ErrorCode code;

  public VeilException(ErrorCode code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }

  public static VeilException clientError(String message) {
    return new VeilException(ErrorCode.CLIENT_ERROR, message);
  }
}
