package dev.veil.sdk;

import dev.veil.sdk.internal.ApiCaller;
import dev.veil.sdk.internal.BidstreamKeyJson;
import dev.veil.sdk.internal.Durations;
import dev.veil.sdk.internal.KeyJson;
import dev.veil.sdk.internal.V2Envelopes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Decrypts advertising tokens for bidders, offline: keys are fetched with the role {@code
 * ID_READER} and refreshed in the background, hourly by default; decrypting a token makes no
 * network call.
 *
 * <pre>{@code
 * TokenDecryptor decryptor = veil.tokenDecryptor().build();
 * decryptor.start();                                // loads keys now, refreshes them hourly
 * DecryptionResult r = decryptor.decrypt(token);    // SUCCESS, EXPIRED, TAMPERED, …
 * DecryptionResult s = decryptor.decrypt(token, "example.com");   // and the domain check
 * }</pre>
 *
 * <p>A token is accepted only if both encryption layers authenticate under keys the server
 * published, its identity prefix is consistent, its keys have not expired and the token itself has
 * not expired by the decryptor's clock. When a token names an unknown key (issued under a key newer
 * than the last refresh), a refresh is started at once, at most once a minute.
 *
 * <p>Without a client secret the keys come from {@code GET /v1/key/latest}. With one ({@link
 * VeilClient.Builder#clientSecret}) they come from {@code POST /v2/key/bidstream}, encrypted, with
 * the server's rules for bidders, which are then checked too: the site key must be among the keys
 * the server gave this bidder ({@link DecryptionStatus#NOT_AUTHORIZED_FOR_KEY}; the master key,
 * {@link DecryptionStatus#NOT_AUTHORIZED_FOR_MASTER_KEY}), and the token may neither live longer
 * from creation to expiry than the server allows nor have been created further ahead of the
 * decryptor's clock than the allowed skew ({@link DecryptionStatus#INVALID_TOKEN_LIFETIME}). The v2
 * key answer names no keyset, so keys are found by their id alone.
 *
 * <p>Thread-safe and cheap to call from many threads: keys are an immutable snapshot swapped
 * atomically. A failed refresh keeps the previous keys (see {@link #lastRefreshFailure()}). Close
 * it to stop the background refresh.
 */
public final class TokenDecryptor implements AutoCloseable {
  private static final Duration EAGER_REFRESH_SPACING = Duration.ofMinutes(1);

  /** A v2 key request has no parameters: its payload is empty, as UID2's SDKs send it. */
  private static final byte[] NO_PARAMETERS = new byte[0];

  private final ApiCaller caller;

  /** The v2 envelopes, or null: keys from v1. */
  private final V2Envelopes v2;

  private final Clock clock;
  private final Duration refreshInterval;
  private final ScheduledExecutorService givenScheduler;
  private final AtomicReference<KeySnapshot> keys = new AtomicReference<>(KeySnapshot.NONE);
  private final AtomicReference<Instant> lastAttempt = new AtomicReference<>(Instant.MIN);
  private volatile RuntimeException lastFailure;
  private ScheduledExecutorService scheduler;
  private ScheduledFuture<?> refreshing;
  private boolean closed;

  private TokenDecryptor(Builder b) {
    this.caller = b.client.caller();
    this.v2 = b.client.v2().orElse(null);
    this.clock = b.clock;
    this.refreshInterval = b.refreshInterval;
    this.givenScheduler = b.scheduler;
  }

  static Builder builder(VeilClient client) {
    return new Builder(client);
  }

  /**
   * Loads the keys now and schedules their refresh every interval.
   *
   * @throws VeilClientException if the first load fails (nothing is scheduled then)
   * @throws IllegalStateException if already started, or closed
   */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("this decryptor is closed");
    }
    if (refreshing != null) {
      throw new IllegalStateException("already started");
    }
    refreshKeys();
    scheduler = givenScheduler;
    if (scheduler == null) {
      scheduler =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "veil-key-refresh");
                t.setDaemon(true);
                return t;
              });
    }
    long period = refreshInterval.toMillis();
    refreshing =
        scheduler.scheduleAtFixedRate(this::refreshQuietly, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * Fetches the keys now and replaces the ones held; returns how many were fetched.
   *
   * @throws VeilClientException if the fetch fails (the previous keys stay)
   */
  public int refreshKeys() {
    lastAttempt.set(clock.instant());
    try {
      KeySnapshot fetched = fetch();
      keys.set(fetched);
      lastFailure = null;
      return fetched.size();
    } catch (VeilClientException e) {
      lastFailure = e;
      throw e;
    }
  }

  private KeySnapshot fetch() {
    if (v2 == null) {
      return KeySnapshot.of(caller.call(KeyJson.PATH, null, KeyJson::read), clock.instant(), null);
    }
    BidstreamKeyJson.Answer answer =
        caller.call(BidstreamKeyJson.PATH, v2.sealed(NO_PARAMETERS, BidstreamKeyJson::read));
    return KeySnapshot.of(answer.keys(), clock.instant(), answer.rules());
  }

  private void refreshQuietly() {
    try {
      refreshKeys();
    } catch (RuntimeException e) {
      lastFailure = e; // kept for lastRefreshFailure(); the previous keys stay in use
    }
  }

  /** Decrypts {@code token} with the keys held; never calls the server. */
  public DecryptionResult decrypt(String token) {
    return decrypt(token, null, clock.instant());
  }

  /**
   * Decrypts {@code token} as {@link #decrypt(String)} does, and also requires its site to list
   * {@code domainOrAppName} (the bid request's site domain or app name; compared ignoring case)
   * among its domain and app names, which the v2 key answer carries ({@code site_data}); otherwise
   * the result is {@link DecryptionStatus#DOMAIN_OR_APP_NAME_CHECK_FAILED}, as it always is when
   * the keys came over v1, which names no domains. UID2's SDKs make this check for tokens generated
   * on the client side only; Veil generates none there, so it checks every token it is asked to.
   */
  public DecryptionResult decrypt(String token, String domainOrAppName) {
    return decrypt(
        token, Objects.requireNonNull(domainOrAppName, "domainOrAppName"), clock.instant());
  }

  private DecryptionResult decrypt(String token, String domainOrAppName, Instant now) {
    Objects.requireNonNull(token, "token");
    KeySnapshot held = keys.get();
    if (held.fetchedAt() == null) {
      RuntimeException failed = lastFailure;
      return DecryptionResult.rejected(
          DecryptionStatus.NOT_READY,
          failed == null
              ? "no keys loaded yet: call start()"
              : "no keys loaded yet: loading them failed: " + failed.getMessage());
    }
    DecryptionResult result = held.decrypt(token, domainOrAppName, now);
    switch (result.status()) {
      case UNKNOWN_KEY, NOT_AUTHORIZED_FOR_KEY, NOT_AUTHORIZED_FOR_MASTER_KEY -> refreshSoon();
      default -> {}
    }
    return result;
  }

  /** Starts a background refresh unless one was attempted within the last minute. */
  private void refreshSoon() {
    ScheduledExecutorService s;
    synchronized (this) {
      s = refreshing == null || closed ? null : scheduler;
    }
    Instant now = clock.instant();
    Instant previous = lastAttempt.get();
    if (s != null
        && previous.plus(EAGER_REFRESH_SPACING).isBefore(now)
        && lastAttempt.compareAndSet(previous, now)) {
      try {
        s.execute(this::refreshQuietly);
      } catch (
          RejectedExecutionException e) { // a scheduler of the caller's, shut down before close()
        lastFailure =
            new IllegalStateException(
                "the key refresh could not be started: its scheduler refused it", e);
      }
    }
  }

  /** When the keys in use were fetched; empty before the first successful fetch. */
  public Optional<Instant> keysFetchedAt() {
    return Optional.ofNullable(keys.get().fetchedAt());
  }

  /** How many keys are held. */
  public int keyCount() {
    return keys.get().size();
  }

  /** The failure of the last refresh, if it failed; empty once a refresh succeeds again. */
  public Optional<RuntimeException> lastRefreshFailure() {
    return Optional.ofNullable(lastFailure);
  }

  /**
   * Stops the background refresh (and its thread, unless the scheduler was given). {@link #decrypt}
   * goes on working with the keys held, which are no longer refreshed.
   */
  @Override
  public synchronized void close() {
    closed = true;
    if (refreshing != null) {
      refreshing.cancel(false);
    }
    if (givenScheduler == null && scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  /**
   * Configures a {@link TokenDecryptor}; from {@link VeilClient#tokenDecryptor()}. Not thread-safe.
   */
  public static final class Builder {
    private final VeilClient client;
    private Clock clock = Clock.systemUTC();
    private Duration refreshInterval = Duration.ofHours(1);
    private ScheduledExecutorService scheduler;

    private Builder(VeilClient client) {
      this.client = Objects.requireNonNull(client, "client");
    }

    /** The clock that decides expiry (default: the system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How often keys are fetched again, 1 ms to 365 days (default one hour). */
    public Builder refreshInterval(Duration refreshInterval) {
      this.refreshInterval = Durations.period(refreshInterval, "refreshInterval");
      return this;
    }

    /** Runs the background refresh (default: a daemon thread of the decryptor's own). */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    public TokenDecryptor build() {
      return new TokenDecryptor(this);
    }
  }
}
