package dev.veil.core.envelope;

import java.util.Locale;
import java.util.Objects;

/**
 * A v2 envelope that cannot be opened. The {@link Reason} says why, for the answer, metrics and
 * tests; the message names only the reason, never the secret, nonce, timestamp or any byte of the
 * envelope. It carries no stack trace: bad envelopes are expected input, not faults.
 */
public final class EnvelopeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why an envelope was refused, in the order the checks run. */
  public enum Reason {
    /** The body is not standard base64 (base64 encoding only). */
    BAD_BASE64,
    /** The envelope is shorter than its fixed fields: no room for a payload, even empty. */
    TOO_SHORT,
    /** A request's first byte is not the envelope version, 1. */
    BAD_VERSION,
    /** The tag does not match: another secret, or altered or truncated bytes. */
    CANNOT_DECRYPT,
    /** A request's timestamp is older than the allowed skew. */
    STALE,
    /** A request's timestamp is further ahead than the allowed skew. */
    FUTURE,
    /** A response does not carry the nonce of the request it answers. */
    NONCE_MISMATCH
  }

  private final Reason reason;

  /** An exception for an envelope refused for {@code reason}. */
  public EnvelopeException(Reason reason) {
    super(
        "invalid v2 envelope: " + Objects.requireNonNull(reason).name().toLowerCase(Locale.ROOT),
        null,
        false,
        false);
    this.reason = reason;
  }

  /** Why the envelope was refused. */
  public Reason reason() {
    return reason;
  }
}
