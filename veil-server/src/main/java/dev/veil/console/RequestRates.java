package dev.veil.console;

import dev.veil.observability.Metrics;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The node's request rates, from its own metrics ({@link Metrics#requestTotals}): {@link #sample()}
 * (every few seconds, on a timer) keeps the totals of the last minute, and {@link #now()} compares
 * the current totals with the oldest kept. Time is a monotonic nanosecond ticker. Thread-safe.
 */
final class RequestRates {
  static final long WINDOW_NANOS = 60_000_000_000L;

  private record Sample(long atNanos, Map<String, Long> totals) {}

  /** One route's requests: since the node started, and per second over {@code windowSeconds}. */
  record Rate(String route, long total, double perSecond, double windowSeconds) {}

  private final Metrics metrics;
  private final LongSupplier ticker;
  private final Deque<Sample> samples = new ArrayDeque<>();

  RequestRates(Metrics metrics, LongSupplier ticker) {
    this.metrics = metrics;
    this.ticker = ticker;
    sample();
  }

  /** Takes the current totals; forgets those older than a minute, but always keeps one. */
  synchronized void sample() {
    long now = ticker.getAsLong();
    samples.addLast(new Sample(now, metrics.requestTotals()));
    while (samples.size() > 1 && now - samples.peekFirst().atNanos() > WINDOW_NANOS) {
      samples.removeFirst();
    }
  }

  /** Every route that has had a request, with its rate since the oldest sample kept. */
  List<Rate> now() {
    Sample oldest;
    synchronized (this) {
      oldest = samples.peekFirst();
    }
    long now = ticker.getAsLong();
    double seconds = (now - oldest.atNanos()) / 1e9;
    List<Rate> rates = new ArrayList<>();
    metrics
        .requestTotals()
        .forEach(
            (route, total) -> {
              if (total > 0) {
                long before = oldest.totals().getOrDefault(route, 0L);
                double perSecond = seconds >= 1 ? (total - before) / seconds : Double.NaN;
                rates.add(new Rate(route, total, perSecond, seconds));
              }
            });
    return rates;
  }
}
