package dev.veil.sdk.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the bidder key answer ({@code /v2/key/bidstream}) says about tokens beyond their keys: how
 * long a token may live from its creation to its expiry ({@code max_bidstream_lifetime_seconds}),
 * how far ahead of the bidder's clock its creation may be ({@code allow_clock_skew_seconds}), and
 * the domain and app names of each site ({@code site_data}). The v1 key answer carries none of it.
 * Immutable.
 *
 * <p>Both times are compared in whole seconds, rounded down, as UID2's bidder SDKs compare them: a
 * lifetime of {@code max + 0.9} seconds passes, one of {@code max + 1} does not.
 *
 * @param maxLifetimeSeconds the longest lifetime allowed; {@link Long#MAX_VALUE} when the answer
 *     gives none
 * @param allowedSkewSeconds how far {@code created} may be ahead of now; {@link
 *     #DEFAULT_ALLOWED_SKEW_SECONDS} when the answer gives none
 * @param namesBySite each listed site's domain and app names, as given
 */
public record BidstreamRules(
    long maxLifetimeSeconds, long allowedSkewSeconds, Map<Integer, List<String>> namesBySite) {
  /** The skew allowed when the answer names none: 30 minutes, as UID2's SDKs assume. */
  public static final long DEFAULT_ALLOWED_SKEW_SECONDS = 1_800;

  /** Copies the names. */
  public BidstreamRules {
    if (maxLifetimeSeconds < 0 || allowedSkewSeconds < 0) {
      throw new IllegalArgumentException("bidstream limits must not be negative");
    }
    Map<Integer, List<String>> copy = new HashMap<>();
    Objects.requireNonNull(namesBySite, "namesBySite")
        .forEach((s, n) -> copy.put(s, List.copyOf(n)));
    namesBySite = Map.copyOf(copy);
  }

  /** Whether a token from {@code created} to {@code expires} lives longer than allowed. */
  public boolean livesTooLong(Instant created, Instant expires) {
    return Duration.between(created, expires).toSeconds() > maxLifetimeSeconds;
  }

  /** Whether {@code created} is further ahead of {@code now} than the allowed skew. */
  public boolean createdTooFarAhead(Instant created, Instant now) {
    return Duration.between(now, created).toSeconds() > allowedSkewSeconds;
  }

  /** Whether site {@code siteId} lists {@code name}, ignoring case; false for an unlisted site. */
  public boolean siteAllows(int siteId, String name) {
    List<String> names = namesBySite.get(siteId);
    if (names == null) {
      return false;
    }
    for (String allowed : names) {
      if (allowed.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }
}
