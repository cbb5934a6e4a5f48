package dev.veil.http;

import dev.veil.config.VeilConfig;
import dev.veil.net.ConnectionLimit;
import dev.veil.net.ConnectionSlot;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The connections of one listener, each tracked from its opening to its closing ({@link
 * TrackedConnection}) with the place the node's {@link ConnectionLimit} gave it when it was
 * accepted ({@link HttpConnectionGate}; a connection shed or closed before Vert.x set it up is
 * closed at once). A sweep every {@link #sweepMillis()} closes those whose request is late (SPEC
 * 11):
 *
 * <ul>
 *   <li>the first request's head must be complete within {@code http.header-timeout} of the
 *       connection's opening;
 *   <li>a body within {@code http.body-timeout} of its head: answered 408, after which the
 *       connection closes ({@link ConnectionClose}: within 2 s more). Each body byte resets the
 *       idle timeout, so without this bound a byte now and then would hold a connection for ever.
 * </ul>
 *
 * <p>A later request's head on a kept-alive connection needs no bound of its own: the idle timeout
 * ({@code http.idle-timeout}) sits behind the HTTP decoder in Vert.x's pipeline, so it counts from
 * the last complete message and the bytes of an unfinished head do not reset it ({@code
 * SlowClientsIT} keeps that so). A connection whose request is being answered has no deadline here.
 * Deadlines are checked by a sweep rather than by a timer per request, so a request costs one map
 * lookup and the field writes of {@link TrackedConnection}; the sweep costs a few nanoseconds per
 * open connection, and a deadline is enforced up to one sweep period late. Confined to the
 * listener's event loop.
 */
final class ListenerConnections {
  private static final long MIN_SWEEP_MILLIS = 50;
  private static final long MAX_SWEEP_MILLIS = 1_000;

  /** The bounds in nanoseconds: the first head's (0 for none) and a body's. */
  record Deadlines(long firstHeadNanos, long bodyNanos) {
    static Deadlines of(VeilConfig config) {
      return new Deadlines(
          config.http().headerTimeout().toNanos(),
          config.connections().httpBodyTimeout().toNanos());
    }

    /** A quarter of the shorter bound, between 50 ms and 1 s. */
    long sweepMillis() {
      long shorter = firstHeadNanos > 0 ? Math.min(firstHeadNanos, bodyNanos) : bodyNanos;
      return Math.max(MIN_SWEEP_MILLIS, Math.min(MAX_SWEEP_MILLIS, shorter / 4_000_000));
    }
  }

  private final HttpConnectionGate gate;
  private final Deadlines deadlines;
  private final Map<HttpConnection, TrackedConnection> open = new HashMap<>();

  ListenerConnections(HttpConnectionGate gate, Deadlines deadlines) {
    this.gate = gate;
    this.deadlines = deadlines;
  }

  /** A connection opened: tracked, or closed if it lost its place already. */
  void opened(HttpConnection connection) {
    ConnectionSlot slot = gate.slotOf(connection);
    if (slot == null) {
      connection.close();
      return;
    }
    // From its admission (at accept): the first head's deadline and its place among the waiting.
    open.put(connection, new TrackedConnection(connection, slot, slot.waitingSince()));
    connection.closeHandler(v -> open.remove(connection)); // the gate gives the place back
  }

  /**
   * The tracked connection of {@code request}, or null if its connection lost its place (it is
   * closing).
   */
  TrackedConnection of(HttpServerRequest request) {
    return open.get(request.connection());
  }

  long sweepMillis() {
    return deadlines.sweepMillis();
  }

  /** Closes the connections whose phase outlasted its bound. */
  void sweep() {
    long now = System.nanoTime();
    List<TrackedConnection> late = null;
    for (TrackedConnection tracked : open.values()) {
      if (tracked.expiry(now, deadlines) != TrackedConnection.Expiry.NONE) {
        late = late == null ? new ArrayList<>() : late;
        late.add(tracked); // acted on after the loop: a close may remove it from the map at once
      }
    }
    if (late != null) {
      late.forEach(tracked -> expire(tracked, now));
    }
  }

  private void expire(TrackedConnection tracked, long now) {
    switch (tracked.expiry(now, deadlines)) {
      case CLOSE -> tracked.connection().close();
      case BODY_TIMEOUT ->
          ErrorResponses.bodyTimeout(tracked.receiving(), Duration.ofNanos(deadlines.bodyNanos()));
      case NONE -> {}
    }
  }
}
