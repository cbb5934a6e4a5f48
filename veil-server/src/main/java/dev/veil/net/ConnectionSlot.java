package dev.veil.net;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One admitted connection's place under its {@link ConnectionLimit}: whether it is busy (answers in
 * progress, never shed) or waiting (idle between requests, or still sending a request: may be
 * shed), and since when it waits. The listener that owns the connection marks it busy and waiting
 * as its requests go, and releases it once the connection closed.
 *
 * <p>Per request this costs two compare-and-set operations and one ordered store, and allocates
 * nothing. Thread-safe: the owner changes the state on its own thread while the limit may claim the
 * slot from another.
 */
public final class ConnectionSlot {
  /** Claimed for shedding: its place was given to a newcomer, its connection is closing. */
  private static final int SHED = -1;

  private static final int RELEASED = -2;
  private static final VarHandle BUSY;
  private static final VarHandle SINCE;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      BUSY = lookup.findVarHandle(ConnectionSlot.class, "busy", int.class);
      SINCE = lookup.findVarHandle(ConnectionSlot.class, "since", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final ConnectionLimit limit;
  private final Runnable close;

  /**
   * Answers in progress, or {@link #SHED} or {@link #RELEASED}. Read and written through {@link
   * #BUSY}.
   */
  @SuppressWarnings("unused")
  private int busy;

  /** {@link System#nanoTime()} when the connection last began to wait. Through {@link #SINCE}. */
  @SuppressWarnings("unused")
  private long since;

  ConnectionSlot(ConnectionLimit limit, Runnable close, long openedNanos) {
    this.limit = limit;
    this.close = close;
    SINCE.setRelease(this, openedNanos);
  }

  /**
   * An answer begins: the connection is not shed until the matching {@link #waiting}. False if the
   * connection was shed or released already: it is closing, and its request must not be served.
   */
  public boolean busy() {
    int n;
    do {
      n = (int) BUSY.getAcquire(this);
      if (n < 0) {
        return false;
      }
    } while (!BUSY.compareAndSet(this, n, n + 1));
    return true;
  }

  /**
   * An answer that {@link #busy()} began has ended at {@code nanoTime} ({@link System#nanoTime()}):
   * once no answer is in progress, the connection waits from then on and may be shed.
   */
  public void waiting(long nanoTime) {
    int n;
    do {
      n = (int) BUSY.getAcquire(this);
      if (n <= 0) {
        return; // shed or released meanwhile (or not busy: nothing to end)
      }
      if (n == 1) {
        SINCE.setRelease(this, nanoTime);
      }
    } while (!BUSY.compareAndSet(this, n, n - 1));
  }

  /** Whether the connection was shed: it lost its place and must be closed. */
  public boolean isShed() {
    return (int) BUSY.getAcquire(this) == SHED;
  }

  /** Gives the place back; call once the connection closed. Later calls do nothing. */
  public void release() {
    int before = (int) BUSY.getAndSet(this, RELEASED);
    if (before >= 0) {
      limit.released(this);
    } else if (before == SHED) {
      limit.shedClosed();
    }
  }

  /**
   * Takes the place from a waiting connection, so the limit can close it; false if busy or gone.
   */
  boolean claim() {
    return BUSY.compareAndSet(this, 0, SHED);
  }

  /** Whether the connection waits (may be shed). */
  boolean isWaiting() {
    return (int) BUSY.getOpaque(this) == 0;
  }

  /**
   * {@link System#nanoTime()} when the connection last began to wait: admitted, or last answered.
   */
  public long waitingSince() {
    return (long) SINCE.getOpaque(this);
  }

  /** Closes the connection (after {@link #claim()}); on whatever thread the limit runs. */
  void close() {
    close.run();
  }
}
