package dev.veil.sdk;

import dev.veil.sdk.internal.Durations;
import java.time.Duration;

/**
 * When a failed request is sent again. Only two kinds of failure are retried: transport failures
 * (no answer) and the answers 429 (rate limited) and 503 (not ready, store unavailable). Every
 * other answer is final. Before retry {@code n} (1 for the first) the client waits
 *
 * <pre>  min(maxBackoff, initialBackoff * multiplier^(n-1)) * (1 - jitter * r)</pre>
 *
 * <p>with {@code r} uniformly random in [0, 1), so that many clients do not retry in step; a {@code
 * Retry-After} header in seconds raises the wait to at least that (still capped by {@code
 * maxBackoff}). An answer 429 says the server is up and asks the client to slow down, not that it
 * failed: {@link Builder#rateLimitedAttempts} lets a bulk job keep retrying it far longer than a
 * failure (by default it counts like any other). Immutable and thread-safe.
 *
 * <pre>{@code
 * RetryPolicy policy =
 *     RetryPolicy.builder().maxAttempts(6).initialBackoff(Duration.ofMillis(100)).build();
 * }</pre>
 */
public final class RetryPolicy {
  private static final RetryPolicy DEFAULTS = builder().build();
  private static final RetryPolicy NONE = builder().maxAttempts(1).build();

  private final int maxAttempts;
  private final int rateLimitedAttempts;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final double multiplier;
  private final double jitter;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.rateLimitedAttempts = b.rateLimitedAttempts == 0 ? b.maxAttempts : b.rateLimitedAttempts;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.multiplier = b.multiplier;
    this.jitter = b.jitter;
  }

  /** 4 attempts, waits of 200 ms, 400 ms, 800 ms (capped at 10 s), jitter 0.2. */
  public static RetryPolicy defaults() {
    return DEFAULTS;
  }

  /** One attempt, no retry. */
  public static RetryPolicy none() {
    return NONE;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Most sends of one request, the first included (at least 1). */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * Most sends of one request when the last answer was 429 (rate limited), the first included:
   * {@link #maxAttempts} unless the builder set another.
   */
  public int rateLimitedAttempts() {
    return rateLimitedAttempts;
  }

  public Duration initialBackoff() {
    return initialBackoff;
  }

  public Duration maxBackoff() {
    return maxBackoff;
  }

  public double multiplier() {
    return multiplier;
  }

  public double jitter() {
    return jitter;
  }

  /**
   * The wait before retry number {@code retry} (1-based), given a random number {@code r} in [0, 1)
   * and the server's {@code Retry-After}, if any.
   */
  public Duration backoff(int retry, double r, Duration retryAfter) {
    double base = initialBackoff.toNanos() * Math.pow(multiplier, retry - 1);
    double capped = Math.min(base, (double) maxBackoff.toNanos());
    long wait = (long) (capped * (1 - jitter * r));
    if (retryAfter != null) {
      wait = Math.max(wait, Math.min(retryAfter.toNanos(), maxBackoff.toNanos()));
    }
    return Duration.ofNanos(wait);
  }

  @Override
  public String toString() {
    return "RetryPolicy{maxAttempts="
        + maxAttempts
        + ", rateLimitedAttempts="
        + rateLimitedAttempts
        + ", initialBackoff="
        + initialBackoff
        + ", maxBackoff="
        + maxBackoff
        + ", multiplier="
        + multiplier
        + ", jitter="
        + jitter
        + "}";
  }

  /** Builds a {@link RetryPolicy}; each setter validates its value. */
  public static final class Builder {
    private int maxAttempts = 4;

    /** 0: as {@link #maxAttempts}. */
    private int rateLimitedAttempts;

    private Duration initialBackoff = Duration.ofMillis(200);
    private Duration maxBackoff = Duration.ofSeconds(10);
    private double multiplier = 2.0;
    private double jitter = 0.2;

    private Builder() {}

    /** Most sends of one request (1 to 100); 1 means no retry. */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1 || maxAttempts > 100) {
        throw new IllegalArgumentException("maxAttempts must be 1 to 100");
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Most sends of one request (1 to 100,000) while the server answers 429 (rate limited), which a
     * bulk job can wait out: the waits stay those of {@link #maxBackoff} and {@code Retry-After}.
     * Not set: {@link #maxAttempts}.
     */
    public Builder rateLimitedAttempts(int rateLimitedAttempts) {
      if (rateLimitedAttempts < 1 || rateLimitedAttempts > 100_000) {
        throw new IllegalArgumentException("rateLimitedAttempts must be 1 to 100000");
      }
      this.rateLimitedAttempts = rateLimitedAttempts;
      return this;
    }

    /** The wait before the first retry, 0 to 365 days. */
    public Builder initialBackoff(Duration initialBackoff) {
      this.initialBackoff = Durations.waitTime(initialBackoff, "initialBackoff");
      return this;
    }

    /** The longest wait between two attempts, 0 to 365 days. */
    public Builder maxBackoff(Duration maxBackoff) {
      this.maxBackoff = Durations.waitTime(maxBackoff, "maxBackoff");
      return this;
    }

    /** Growth of the wait per retry (at least 1). */
    public Builder multiplier(double multiplier) {
      if (!(multiplier >= 1 && multiplier <= 100)) {
        throw new IllegalArgumentException("multiplier must be 1 to 100");
      }
      this.multiplier = multiplier;
      return this;
    }

    /** Share of each wait that is randomly taken off (0 for none, at most 1). */
    public Builder jitter(double jitter) {
      if (!(jitter >= 0 && jitter <= 1)) {
        throw new IllegalArgumentException("jitter must be 0 to 1");
      }
      this.jitter = jitter;
      return this;
    }

    public RetryPolicy build() {
      if (maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException("maxBackoff must not be shorter than initialBackoff");
      }
      return new RetryPolicy(this);
    }
  }
}
