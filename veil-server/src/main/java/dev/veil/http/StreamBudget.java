package dev.veil.http;

import dev.veil.config.VeilConfig;
import dev.veil.observability.Counter;
import dev.veil.observability.Metrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The bytes of streamed answers that the node holds in memory at once, all connections together
 * ({@code limits.stream-buffer-bytes}), and how long a stream may hold its share without progress
 * ({@code http.stream-stall-timeout}).
 *
 * <p>Design note. A streamed answer asks for budget before it formats a chunk and gives it back
 * once Netty has handed the chunk's bytes to the kernel, or once the connection closed ({@link
 * BucketStream}). So a client that stops reading holds at most one chunk, and all such clients
 * together hold at most the budget however many they are; the others wait without a chunk. Requests
 * are granted in the order they were made: while the oldest does not fit, younger ones wait too (no
 * barging), and a stream asks again after each chunk, so streams take turns and none starves. A
 * stream that holds budget and makes no progress for the stall timeout has its connection closed,
 * which gives its share back.
 *
 * <p>Thread-safe: the event loops share one budget. A grant runs outside the lock on the thread
 * that released the bytes (or asked for them); the stream moves to its own event loop.
 */
final class StreamBudget {
  private final int capacity;
  private final Duration stallTimeout;
  private final Counter stalls;
  private final LinkedHashSet<Request> queue = new LinkedHashSet<>();
  private int available;

  /**
   * @param capacity bytes that streams may hold at once; at least the largest single request
   * @param stallTimeout how long a stream may hold budget without progress before it is closed
   * @param stalls counts the streams closed for that
   */
  StreamBudget(int capacity, Duration stallTimeout, Counter stalls) {
    if (capacity < 1 || stallTimeout.isNegative() || stallTimeout.isZero()) {
      throw new IllegalArgumentException("capacity and stall timeout must be positive");
    }
    this.capacity = capacity;
    this.available = capacity;
    this.stallTimeout = stallTimeout;
    this.stalls = stalls;
  }

  /**
   * The node's budget, from its settings, with its gauges and stall counter registered in {@code
   * metrics}.
   */
  static StreamBudget of(VeilConfig config, Metrics metrics) {
    StreamBudget budget =
        new StreamBudget(
            config.limits().streamBufferBytes(),
            config.http().streamStallTimeout(),
            metrics.counter(
                "veil_http_stream_stalls_total",
                "Streamed answers closed because their client read nothing for"
                    + " http.stream-stall-timeout."));
    metrics.gauge(
        "veil_http_stream_buffered_bytes",
        "Bytes of streamed answers held in memory now, at most limits.stream-buffer-bytes.",
        budget::held);
    metrics.gauge(
        "veil_http_stream_waiting",
        "Streamed answers waiting for limits.stream-buffer-bytes to format their next chunk.",
        budget::waiting);
    return budget;
  }

  /**
   * A request for budget, granted (its callback run) once the bytes are available and its turn has
   * come.
   */
  final class Request {
    private final int bytes;
    private final Runnable granted;

    private Request(int bytes, Runnable granted) {
      this.bytes = bytes;
      this.granted = granted;
    }

    /**
     * Withdraws the request if it still waits. Returns false if it was granted already: then its
     * callback has run or is about to, and the bytes must be released.
     */
    boolean cancel() {
      List<Request> granted;
      synchronized (StreamBudget.this) {
        if (!queue.remove(this)) {
          return false;
        }
        granted = grantInOrder(); // the oldest request may have been all that held the others back
      }
      granted.forEach(r -> r.granted.run());
      return true;
    }
  }

  /**
   * Asks for {@code bytes}; {@code granted} runs at once (on this thread) if they are available and
   * nobody waits, otherwise later on the thread that releases them.
   *
   * @throws IllegalArgumentException if {@code bytes} is not positive or exceeds the whole budget
   */
  Request acquire(int bytes, Runnable granted) {
    if (bytes < 1 || bytes > capacity) {
      throw new IllegalArgumentException(
          "a request must be between 1 and " + capacity + " bytes, got " + bytes);
    }
    Request request = new Request(bytes, granted);
    List<Request> now;
    synchronized (this) {
      queue.add(request);
      now = grantInOrder();
    }
    now.forEach(r -> r.granted.run());
    return request;
  }

  /**
   * Gives back {@code bytes} of a granted request and grants waiting requests that now fit, oldest
   * first.
   */
  void release(int bytes) {
    List<Request> granted;
    synchronized (this) {
      if (bytes < 1 || available + bytes > capacity) {
        throw new IllegalStateException("released " + bytes + " bytes, more than were held");
      }
      available += bytes;
      granted = grantInOrder();
    }
    granted.forEach(r -> r.granted.run());
  }

  private List<Request> grantInOrder() {
    List<Request> granted = List.of();
    Iterator<Request> oldestFirst = queue.iterator();
    while (oldestFirst.hasNext()) {
      Request next = oldestFirst.next();
      if (next.bytes > available) {
        break;
      }
      available -= next.bytes;
      oldestFirst.remove();
      if (granted.isEmpty()) {
        granted = new ArrayList<>(2);
      }
      granted.add(next);
    }
    return granted;
  }

  /** Bytes granted and not yet released. */
  synchronized int held() {
    return capacity - available;
  }

  /** Requests waiting for their turn. */
  synchronized int waiting() {
    return queue.size();
  }

  Duration stallTimeout() {
    return stallTimeout;
  }

  /** Counts a stream closed because it made no progress for {@link #stallTimeout()}. */
  void stalled() {
    stalls.inc();
  }
}
