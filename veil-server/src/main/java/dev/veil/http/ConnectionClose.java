package dev.veil.http;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes connections that must not carry another request: after an answer sent before the request's
 * body was read (an unknown key, a body over the limit), after a request whose body's end was
 * ambiguous, after a chunked request. A connection is marked first, so that a request pipelined
 * behind on it is left unanswered rather than served ({@link #isClosing}), then closed once the
 * answer is written.
 *
 * <p>Closing with body bytes still unread makes the kernel reset the connection, and a reset can
 * destroy the answer before the client reads it. So {@link #afterAnswer} reads and drops the rest
 * of the body first, as web servers do ("lingering close"), but for no longer than {@link
 * #MAX_LINGER_MILLIS} and no more than {@link #MAX_DROPPED_BYTES}. Thread-safe.
 */
final class ConnectionClose {
  static final long MAX_LINGER_MILLIS = 2_000;
  static final long MAX_DROPPED_BYTES = 4L << 20;
  private static final Set<HttpConnection> CLOSING = ConcurrentHashMap.newKeySet();

  private ConnectionClose() {}

  /** Marks the request's connection: nothing more is served on it. Call before answering. */
  static void mark(HttpServerRequest request) {
    CLOSING.add(request.connection());
  }

  /** Whether the connection was marked and is closing: a request on it is not answered. */
  static boolean isClosing(HttpConnection connection) {
    return !CLOSING.isEmpty() && CLOSING.contains(connection);
  }

  /** Closes the marked connection now (its answer is written). */
  static void now(HttpServerRequest request) {
    HttpConnection connection = request.connection();
    connection.close().onComplete(closed -> CLOSING.remove(connection));
  }

  /**
   * Closes the marked connection once the rest of the request's body has been read and dropped, or
   * at the latest after {@link #MAX_LINGER_MILLIS} or {@link #MAX_DROPPED_BYTES}. Called on the
   * connection's event loop once the answer is written.
   */
  static void afterAnswer(HttpServerRequest request) {
    Context context = Vertx.currentContext();
    if (request.isEnded() || context == null) {
      now(request);
      return;
    }
    Vertx vertx = context.owner();
    long timer = vertx.setTimer(MAX_LINGER_MILLIS, id -> now(request));
    long[] dropped = {0};
    request.handler(
        chunk -> {
          dropped[0] += chunk.length();
          if (dropped[0] > MAX_DROPPED_BYTES && vertx.cancelTimer(timer)) {
            now(request);
          }
        });
    request.exceptionHandler(
        failure -> {
          if (vertx.cancelTimer(timer)) {
            now(request);
          }
        });
    request.endHandler(
        end -> {
          if (vertx.cancelTimer(timer)) {
            now(request);
          }
        });
    request.resume();
  }
}
