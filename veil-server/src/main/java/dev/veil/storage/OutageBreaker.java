package dev.veil.storage;

import dev.veil.common.StoreUnavailableException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Makes calls to PostgreSQL fail at once while it is known to be unreachable, so that a write
 * during an outage is answered (503, code 1) in microseconds instead of each caller waiting out the
 * connect timeout, and callers cannot pile up behind the pool.
 *
 * <p>Closed (normal): every call goes through. A call that fails at the connection level (SQL state
 * class 08, the server shutting down or starting up {@code 57P01}–{@code 57P03}, too many
 * connections {@code 53300}, or no pooled connection within the timeout) opens it. Open: calls fail
 * at once, except one call per retry interval, which goes through as a probe; any call that
 * succeeds closes it. The probe is left to the node's own background calls (the catch-up poll,
 * every second) while they run: a probe into a database that has gone silent waits out the whole
 * timeout, and that wait is the poll's, not a user's. A request probes only when no background call
 * is in flight and none has started or ended within {@link #BACKGROUND_GRACE_INTERVALS} retry
 * intervals (a node whose poll is not running). Writes come back as soon as a probe succeeds.
 *
 * <p>Thread-safe and lock-free. Time comes from an injected nanosecond ticker.
 */
final class OutageBreaker {
  /** Retry intervals after a background call's start or end during which requests do not probe. */
  static final int BACKGROUND_GRACE_INTERVALS = 3;

  private final LongSupplier ticker;
  private final long retryNanos;
  private final AtomicLong nextProbe = new AtomicLong();
  private volatile boolean open;
  private volatile boolean backgroundSeen;
  private volatile long lastBackgroundNanos;

  /**
   * Background calls let through and not yet ended: a probe into a silent database can take 15 s.
   */
  private final AtomicInteger backgroundInFlight = new AtomicInteger();

  /**
   * @param retry how often a call may probe while open
   * @param ticker monotonic nanoseconds ({@code System::nanoTime} in production)
   */
  OutageBreaker(Duration retry, LongSupplier ticker) {
    this.retryNanos = retry.toNanos();
    this.ticker = ticker;
  }

  /**
   * Lets the call through, or throws if the database is known to be unreachable and this call is
   * not the interval's probe.
   *
   * @throws StoreUnavailableException naming {@code operation} and {@code store}
   */
  void beforeCall(String operation, String store) {
    beforeCall(operation, store, false);
  }

  /**
   * {@link #beforeCall} for the node's own background work (the catch-up poll, a job's lock), which
   * is given the probe while it runs; call {@link #backgroundCallEnded} when it returns.
   */
  void beforeBackgroundCall(String operation, String store) {
    lastBackgroundNanos = ticker.getAsLong();
    backgroundSeen = true;
    beforeCall(operation, store, true);
    backgroundInFlight.incrementAndGet();
  }

  /** A background call let through by {@link #beforeBackgroundCall} returned, or failed. */
  void backgroundCallEnded() {
    lastBackgroundNanos = ticker.getAsLong();
    backgroundInFlight.decrementAndGet();
  }

  private void beforeCall(String operation, String store, boolean background) {
    if (!open) {
      return;
    }
    long now = ticker.getAsLong();
    long due = nextProbe.get();
    boolean backgroundProbes =
        backgroundSeen
            && (backgroundInFlight.get() > 0
                || now - lastBackgroundNanos < BACKGROUND_GRACE_INTERVALS * retryNanos);
    if ((background || !backgroundProbes)
        && now - due >= 0
        && nextProbe.compareAndSet(due, now + retryNanos)) {
      return; // this call is the probe
    }
    throw new StoreUnavailableException(
        operation
            + " failed: "
            + store
            + " is unreachable (calls fail at once until it answers again)",
        null);
  }

  /** A call completed without a connection-level failure. */
  void succeeded() {
    if (open) {
      open = false;
    }
  }

  /** A call failed with {@code e}; opens the breaker if the database itself is unreachable. */
  void failed(SQLException e) {
    if (isConnectionFailure(e)) {
      nextProbe.set(ticker.getAsLong() + retryNanos);
      open = true;
    }
  }

  /** Whether calls currently fail at once. */
  boolean isOpen() {
    return open;
  }

  /** Whether {@code e} says the database cannot be reached, rather than that a statement failed. */
  static boolean isConnectionFailure(SQLException e) {
    if (e instanceof SQLTransientConnectionException) {
      return true;
    }
    String state = e.getSQLState();
    return state != null
        && (state.startsWith("08")
            || state.equals("57P01")
            || state.equals("57P02")
            || state.equals("57P03")
            || state.equals("53300"));
  }
}
