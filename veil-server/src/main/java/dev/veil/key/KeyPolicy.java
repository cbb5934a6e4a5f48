package dev.veil.key;

import java.time.Duration;

/**
 * How keys rotate. A new key is created when the newest key of a keyset is older than {@code
 * rotationPeriod} minus {@code activationDelay}, and activates {@code activationDelay} later, so
 * every node learns it before it is used. A key expires {@code 2 * rotationPeriod +
 * activationDelay} plus the lifetime of the tokens it protects after it activates, so tokens
 * encrypted at the end of its active time stay decryptable for their whole life even if a rotation
 * run is missed.
 *
 * @param advertisingTokenLifetime the longest life of a token under a master or site key: the
 *     advertising token lifetime, or the lifetime of tokens sharers encrypt if that is longer
 */
public record KeyPolicy(
    Duration rotationPeriod,
    Duration activationDelay,
    Duration advertisingTokenLifetime,
    Duration refreshTokenLifetime) {

  public KeyPolicy {
    if (rotationPeriod.compareTo(activationDelay) <= 0) {
      throw new IllegalArgumentException("key rotation period must exceed the activation delay");
    }
  }

  /** How long after activation a key expires, given the lifetime of the tokens it protects. */
  public Duration keyLifetime(Duration protectedTokenLifetime) {
    return rotationPeriod.multipliedBy(2).plus(activationDelay).plus(protectedTokenLifetime);
  }
}
