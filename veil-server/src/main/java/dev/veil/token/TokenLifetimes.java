package dev.veil.token;

import java.time.Duration;

/**
 * Lifetimes of issued tokens (docs/spec.md 1.3). Invariant: refreshFrom <= advertising <= refresh.
 *
 * @param advertising how long an advertising token is valid (default 72 h)
 * @param refreshFrom how long after issue the SDK should start refreshing (default 1 h)
 * @param refresh how long a refresh token is valid (default 30 days)
 */
public record TokenLifetimes(Duration advertising, Duration refreshFrom, Duration refresh) {
  public TokenLifetimes {
    if (refreshFrom.isNegative()
        || refreshFrom.compareTo(advertising) > 0
        || advertising.compareTo(refresh) > 0) {
      throw new IllegalArgumentException(
          "token lifetimes must satisfy 0 <= refresh_from <= advertising token <= refresh token");
    }
  }

  public static TokenLifetimes defaults() {
    return new TokenLifetimes(Duration.ofHours(72), Duration.ofHours(1), Duration.ofDays(30));
  }
}
