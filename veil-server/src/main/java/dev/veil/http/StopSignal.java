package dev.veil.http;

/**
 * Whether the listener has begun to stop. From then on every answer carries {@code Connection:
 * close}: the stop closes each connection after its request in flight, and a client told so opens a
 * new connection for its next request (and finds the port closed) instead of sending it on one the
 * server is closing, where it would be lost unanswered. One volatile read per answer. Thread-safe.
 */
final class StopSignal {
  private volatile boolean stopping;

  void begin() {
    stopping = true;
  }

  boolean stopping() {
    return stopping;
  }
}
