package dev.veil.console;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Refused sign-ins per client address: after {@value #MAX_REFUSALS} within {@link #WINDOW}, the
 * address's next attempts are refused unchecked until the oldest of them leaves the window. An API
 * key cannot be guessed (256 random bits), but a form that checks keys as fast as it is sent is
 * work anyone reaching the console can make the node do, and every try is logged. A success forgets
 * the address's refusals. The addresses kept are bounded ({@value #MAX_ADDRESSES}, the least
 * recently refused dropped first), so the table cannot grow without end; the counts are per node,
 * like the sessions. Thread-safe.
 */
final class SignInThrottle {
  static final int MAX_REFUSALS = 10;
  static final Duration WINDOW = Duration.ofMinutes(1);
  static final int MAX_ADDRESSES = 4096;

  private final Clock clock;

  /** Per address, the times of its refusals within the window, oldest first. */
  private final Map<String, Deque<Long>> refusals =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Deque<Long>> eldest) {
          return size() > MAX_ADDRESSES;
        }
      };

  SignInThrottle(Clock clock) {
    this.clock = clock;
  }

  /**
   * How long {@code address} must wait before its key is checked again: zero when it may try now,
   * else at least one second.
   */
  synchronized Duration waitFor(String address) {
    Deque<Long> times = refusals.get(address);
    if (times == null) {
      return Duration.ZERO;
    }
    long now = clock.millis();
    dropOld(times, now);
    if (times.size() < MAX_REFUSALS) {
      return Duration.ZERO;
    }
    long waitMillis = times.peekFirst() + WINDOW.toMillis() - now;
    return Duration.ofSeconds(Math.max(1, (waitMillis + 999) / 1000));
  }

  /** Notes a refused sign-in from {@code address}. */
  synchronized void refused(String address) {
    long now = clock.millis();
    Deque<Long> times = refusals.computeIfAbsent(address, a -> new ArrayDeque<>());
    dropOld(times, now);
    times.addLast(now);
    while (times.size() > MAX_REFUSALS) {
      times.removeFirst();
    }
  }

  /** Forgets the refusals of {@code address}: it signed in. */
  synchronized void succeeded(String address) {
    refusals.remove(address);
  }

  private static void dropOld(Deque<Long> times, long now) {
    long from = now - WINDOW.toMillis();
    while (!times.isEmpty() && times.peekFirst() <= from) {
      times.removeFirst();
    }
  }
}
