package dev.veil.http;

import dev.veil.net.ConnectionSlot;
import io.vertx.core.http.HttpConnection;

/**
 * One HTTP connection as its listener tracks it: what it does now (waits for a request's head,
 * receives a body, or is being answered), since when, and its place under the node's connection
 * limit ({@link ConnectionSlot}: waiting connections may be shed, busy ones never). {@link
 * ListenerConnections} reads {@link #expiry} in its sweep and closes the connection when a phase
 * outlasts its bound.
 *
 * <p>Each request moves it through a few field writes and, on the slot, two compare-and-set
 * operations (four with a body): nothing is allocated. Used only on the connection's event loop.
 */
final class TrackedConnection {
  /** What the sweep does with a connection. */
  enum Expiry {
    NONE,
    CLOSE,
    BODY_TIMEOUT
  }

  private enum Phase {
    HEAD,
    BODY,
    ANSWER
  }

  private final HttpConnection connection;
  private final ConnectionSlot slot;
  private Phase phase = Phase.HEAD;

  /**
   * In {@link Phase#HEAD}: whether the awaited head is a later request's, on a kept-alive
   * connection.
   */
  private boolean keptAlive;

  /** {@link System#nanoTime()} when the phase began. */
  private long since;

  /**
   * {@link System#nanoTime()} when the connection began to wait for its current request: opened, or
   * last answered.
   */
  private long idleSince;

  /** Whether this connection holds {@link ConnectionSlot#busy()}. */
  private boolean busy;

  /** In {@link Phase#BODY}: the request whose body is awaited. */
  private Exchange receiving;

  TrackedConnection(HttpConnection connection, ConnectionSlot slot, long openedNanos) {
    this.connection = connection;
    this.slot = slot;
    this.since = openedNanos;
    this.idleSince = openedNanos;
  }

  HttpConnection connection() {
    return connection;
  }

  /**
   * A request's head arrived at {@code nanoTime}: it is answered from now on. False if the
   * connection was shed meanwhile: it is closing, and the request must not be served.
   */
  boolean headArrived(long nanoTime) {
    phase = Phase.ANSWER;
    since = nanoTime;
    receiving = null;
    return becomeBusy();
  }

  /**
   * The answer to {@code ex} waits for the request's body, which must arrive within the body
   * timeout of the head; meanwhile the connection counts as waiting (it may be shed), since it
   * began to wait for this request.
   */
  void awaitingBody(Exchange ex) {
    phase = Phase.BODY;
    receiving = ex;
    if (busy) {
      busy = false;
      slot.waiting(idleSince);
    }
  }

  /** The body arrived whole; false if the connection was shed meanwhile (do not serve it). */
  boolean bodyArrived() {
    phase = Phase.ANSWER;
    receiving = null;
    return becomeBusy();
  }

  /** The answer ended at {@code nanoTime}: the next request's head is awaited from then on. */
  void answered(long nanoTime) {
    phase = Phase.HEAD;
    keptAlive = true;
    since = nanoTime;
    idleSince = nanoTime;
    receiving = null;
    if (busy) {
      busy = false;
      slot.waiting(nanoTime);
    }
  }

  private boolean becomeBusy() {
    if (!busy) {
      busy = slot.busy();
    }
    return busy;
  }

  /** What the sweep at {@code now} must do, given the bounds of {@code deadlines} (0: none). */
  Expiry expiry(long now, ListenerConnections.Deadlines deadlines) {
    long bound =
        switch (phase) {
          case HEAD ->
              keptAlive
                  ? 0
                  : deadlines.firstHeadNanos(); // a later head: the idle timeout bounds it
          case BODY -> deadlines.bodyNanos();
          case ANSWER -> 0;
        };
    if (bound <= 0 || now - since <= bound) {
      return Expiry.NONE;
    }
    return phase == Phase.BODY ? Expiry.BODY_TIMEOUT : Expiry.CLOSE;
  }

  /** In {@link Phase#BODY}: the request whose body is late. */
  Exchange receiving() {
    return receiving;
  }
}
