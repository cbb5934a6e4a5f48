package dev.veil.http;

import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.InvalidIdentifierException;

/**
 * The one identity parameter of generate, validate, map GET and opt-out (docs/spec.md 1.3): exactly
 * one of {@code email}, {@code email_hash}, {@code phone}, {@code phone_hash}.
 *
 * @param input which parameter carried it
 * @param value its value, as given
 */
record IdentityParam(IdentityInput input, String value) {
  static final String EXACTLY_ONE =
      "Required Parameter Missing: exactly one of [email, email_hash, phone, phone_hash] must be"
          + " specified";

  /**
   * The identity parameter of a request.
   *
   * @throws VeilException CLIENT_ERROR {@link #EXACTLY_ONE} when none or more than one is given (a
   *     name given twice counts twice)
   */
  static IdentityParam from(Params params) {
    IdentityInput found = null;
    int count = 0;
    for (IdentityInput input : IdentityInput.values()) {
      int n = params.count(input.parameterName());
      if (n > 0) {
        found = input;
        count += n;
      }
    }
    if (count != 1) {
      throw VeilException.clientError(EXACTLY_ONE);
    }
    return new IdentityParam(found, params.get(found.parameterName()));
  }

  /**
   * The normalized identity hash.
   *
   * @throws VeilException CLIENT_ERROR {@code Invalid Identifier} when the value does not normalize
   */
  IdentityHash parse() {
    try {
      return IdentityHash.parse(input, value);
    } catch (InvalidIdentifierException e) {
      throw VeilException.clientError(ErrorResponses.INVALID_IDENTIFIER);
    }
  }

  /** Never shows the value: it is PII. */
  @Override
  public String toString() {
    return "IdentityParam{input=" + input + ", value=<redacted>}";
  }
}
