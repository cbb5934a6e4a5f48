package dev.veil.http;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Limits each API client to {@code perSecond} requests per wall-clock second ({@code
 * limits.rate-limit-per-second}; 0 turns it off). A fixed one-second window per client, held in one
 * {@link AtomicLong} (second in the high bits, count in the low 24), updated with compare-and-set:
 * lock-free and shared by every event loop. The window is per node.
 */
final class RateLimiter {
  private static final int COUNT_BITS = 24;
  private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;

  private final long perSecond;
  private final Clock clock;
  private final Map<Long, AtomicLong> windows = new ConcurrentHashMap<>();

  RateLimiter(int perSecond, Clock clock) {
    this.perSecond = Math.min(perSecond, COUNT_MASK);
    this.clock = clock;
  }

  boolean enabled() {
    return perSecond > 0;
  }

  /** Whether the client may make one more request in the current second (counts it if so). */
  boolean tryAcquire(long clientId) {
    if (perSecond <= 0) {
      return true;
    }
    long second = Math.floorDiv(clock.millis(), 1000L);
    AtomicLong window = windows.computeIfAbsent(clientId, id -> new AtomicLong());
    while (true) {
      long current = window.get();
      long next;
      if ((current >>> COUNT_BITS) == second) {
        if ((current & COUNT_MASK) >= perSecond) {
          return false;
        }
        next = current + 1;
      } else {
        next = (second << COUNT_BITS) | 1;
      }
      if (window.compareAndSet(current, next)) {
        return true;
      }
    }
  }
}
