package dev.veil.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes a connection that has not delivered complete request headers within the header timeout of
 * its opening ({@code http.header-timeout}, docs/spec.md 11), so that clients sending nothing, or a
 * few header bytes at a time, cannot hold connections. Vert.x has no such option: a timer is set
 * per connection and cancelled when its first request's headers arrive or when it closes. Later
 * requests on a kept-alive connection are bounded by the idle timeout instead.
 *
 * <p>Timers and handlers run on the connection's event loop; the map is shared by all listeners.
 */
final class HeaderTimeout {
  private final Vertx vertx;
  private final long timeoutMillis;
  private final Map<HttpConnection, Long> pending = new ConcurrentHashMap<>();

  HeaderTimeout(Vertx vertx, Duration timeout) {
    this.vertx = vertx;
    this.timeoutMillis = timeout.toMillis();
  }

  /** Starts the clock for a new connection. */
  void watch(HttpConnection connection) {
    if (timeoutMillis <= 0) {
      return;
    }
    long timer = vertx.setTimer(timeoutMillis, id -> {
      if (pending.remove(connection) != null) {
        connection.close();
      }
    });
    pending.put(connection, timer);
    connection.closeHandler(v -> headersArrived(connection));
  }

  /** Stops the clock: the connection delivered request headers (or closed). */
  void headersArrived(HttpConnection connection) {
    if (pending.isEmpty()) {
      return;
    }
    Long timer = pending.remove(connection);
    if (timer != null) {
      vertx.cancelTimer(timer);
    }
  }
}
