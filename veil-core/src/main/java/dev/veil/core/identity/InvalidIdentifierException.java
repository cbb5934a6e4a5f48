package dev.veil.core.identity;

import java.util.Objects;

/**
 * An identifier that does not normalize, or a hash that is not 32 bytes in an accepted text form.
 * The message names only the input kind, never the value, so that it can be logged and returned to
 * callers. It carries no stack trace: it is an expected outcome of bad input, not a fault.
 */
public final class InvalidIdentifierException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final IdentityInput input;

  /** An exception for a bad value of {@code input}. */
  public InvalidIdentifierException(IdentityInput input) {
    super("invalid " + Objects.requireNonNull(input).parameterName(), null, false, false);
    this.input = input;
  }

  /** Which kind of input was rejected. */
  public IdentityInput input() {
    return input;
  }
}
