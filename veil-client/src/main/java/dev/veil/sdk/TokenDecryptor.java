package dev.veil.sdk;

import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.InvalidTokenException;
import dev.veil.core.token.KeyLookup;
import dev.veil.sdk.internal.ApiCaller;
import dev.veil.sdk.internal.Durations;
import dev.veil.sdk.internal.KeyJson;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Decrypts advertising tokens for bidders, offline: keys come from {@code GET /v1/key/latest} (role
 * {@code ID_READER}) and are refreshed in the background, hourly by default; decrypting a token
 * makes no network call.
 *
 * <pre>{@code
 * TokenDecryptor decryptor = veil.tokenDecryptor().build();
 * decryptor.start();                             // loads keys now, refreshes them hourly
 * DecryptionResult r = decryptor.decrypt(token); // SUCCESS, EXPIRED, TAMPERED, …
 * }</pre>
 *
 * <p>A token is accepted only if both encryption layers authenticate under keys the server
 * published, its identity prefix is consistent, its keys have not expired and the token itself has
 * not expired by the decryptor's clock. When a token names an unknown key (issued under a key newer
 * than the last refresh), a refresh is started at once, at most once a minute.
 *
 * <p>Thread-safe and cheap to call from many threads: keys are an immutable snapshot swapped
 * atomically. A failed refresh keeps the previous keys (see {@link #lastRefreshFailure()}). Close
 * it to stop the background refresh.
 */
public final class TokenDecryptor implements AutoCloseable {
  /** Tokens are only decoded, never encoded, so the codec never draws an IV. */
  private static final AdvertisingTokenCodec CODEC =
      new AdvertisingTokenCodec(
          iv -> {
            throw new IllegalStateException("decoding draws no IV");
          });

  private static final Duration EAGER_REFRESH_SPACING = Duration.ofMinutes(1);

  private final ApiCaller caller;
  private final Clock clock;
  private final Duration refreshInterval;
  private final ScheduledExecutorService givenScheduler;
  private final AtomicReference<Keys> keys = new AtomicReference<>(new Keys(Map.of(), null));
  private final AtomicReference<Instant> lastAttempt = new AtomicReference<>(Instant.MIN);
  private volatile RuntimeException lastFailure;
  private ScheduledExecutorService scheduler;
  private ScheduledFuture<?> refreshing;
  private boolean closed;

  /** An immutable snapshot of keys by id, and when it was fetched. */
  private record Keys(Map<Integer, EncryptionKey> byId, Instant fetchedAt) {}

  private TokenDecryptor(Builder b) {
    this.caller = b.client.caller();
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
      List<EncryptionKey> fetched = caller.call(KeyJson.PATH, null, KeyJson::read);
      Map<Integer, EncryptionKey> byId = new HashMap<>();
      for (EncryptionKey key : fetched) {
        byId.put(key.id(), key);
      }
      keys.set(new Keys(Map.copyOf(byId), clock.instant()));
      lastFailure = null;
      return byId.size();
    } catch (VeilClientException e) {
      lastFailure = e;
      throw e;
    }
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
    Objects.requireNonNull(token, "token");
    Keys held = keys.get();
    if (held.fetchedAt() == null) {
      RuntimeException failed = lastFailure;
      return DecryptionResult.rejected(
          DecryptionStatus.NOT_READY,
          failed == null
              ? "no keys loaded yet: call start()"
              : "no keys loaded yet: loading them failed: " + failed.getMessage());
    }
    Instant now = clock.instant();
    boolean[] hitExpiredKey = {false};
    KeyLookup unexpired =
        id -> {
          EncryptionKey key = held.byId().get(id);
          if (key != null && key.isExpired(now)) {
            hitExpiredKey[0] = true;
            return null;
          }
          return key;
        };
    AdvertisingTokenPayload payload;
    try {
      payload = CODEC.decode(token, unexpired);
    } catch (InvalidTokenException e) {
      return rejection(e.reason(), hitExpiredKey[0]);
    }
    if (!now.isBefore(payload.expires())) {
      return DecryptionResult.rejected(
          DecryptionStatus.EXPIRED, "token expired at " + payload.expires());
    }
    return DecryptionResult.success(payload);
  }

  private DecryptionResult rejection(InvalidTokenException.Reason reason, boolean hitExpiredKey) {
    switch (reason) {
      case MALFORMED:
        return DecryptionResult.rejected(
            DecryptionStatus.MALFORMED,
            "not an advertising token (length, alphabet or identity prefix)");
      case UNSUPPORTED_VERSION:
        return DecryptionResult.rejected(
            DecryptionStatus.UNSUPPORTED_VERSION, "unsupported token version");
      case UNKNOWN_KEY:
        if (hitExpiredKey) {
          return DecryptionResult.rejected(
              DecryptionStatus.EXPIRED, "the key that encrypted the token has expired");
        }
        refreshSoon();
        return DecryptionResult.rejected(
            DecryptionStatus.UNKNOWN_KEY,
            "the token names a key this decryptor does not hold (keys fetched at "
                + keys.get().fetchedAt()
                + ")");
      case TAMPERED:
      default:
        return DecryptionResult.rejected(
            DecryptionStatus.TAMPERED,
            "authentication failed: the token was altered or not issued by this Veil");
    }
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
    return keys.get().byId().size();
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
