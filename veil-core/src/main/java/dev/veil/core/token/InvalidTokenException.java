package dev.veil.core.token;

import java.util.Locale;
import java.util.Objects;

/**
 * A token that cannot be decoded: every caller treats it as "invalid token", and the {@link Reason}
 * only says why, for metrics and tests. The message names the reason and never contains the token.
 * It carries no stack trace: bad tokens are expected input, not faults.
 */
public final class InvalidTokenException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why a token was rejected. */
  public enum Reason {
    /** Not the expected base64 variant, not canonical, wrong length, or unknown identity prefix. */
    MALFORMED,
    /** The version byte is not the one this codec reads. */
    UNSUPPORTED_VERSION,
    /** A key id inside the token is not known to the {@link KeyLookup}. */
    UNKNOWN_KEY,
    /** An authentication tag failed, or a decrypted field contradicts the key or header. */
    TAMPERED
  }

  private final Reason reason;

  /** An exception for a token rejected for {@code reason}. */
  public InvalidTokenException(Reason reason) {
    super(
        "invalid token: " + Objects.requireNonNull(reason).name().toLowerCase(Locale.ROOT),
        null,
        false,
        false);
    this.reason = reason;
  }

  /** Why the token was rejected. */
  public Reason reason() {
    return reason;
  }
}
