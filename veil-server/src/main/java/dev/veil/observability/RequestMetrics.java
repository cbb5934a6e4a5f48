package dev.veil.observability;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The request series of one route and method: per status code, a count and a latency histogram.
 * Created by {@link Metrics#httpRequests}; thread-safe.
 *
 * <p>Design note. Series are kept in an array indexed by status code (100 to 599), created on first
 * use with a compare-and-set, so {@link #record} allocates nothing after the first request with a
 * given status. Bucket counts are stored per bucket and summed into Prometheus' cumulative form at
 * scrape time.
 */
public final class RequestMetrics {
  /** Upper bounds of the latency buckets, in seconds. */
  static final double[] BOUNDS_SECONDS = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  private static final long[] BOUNDS_NANOS = new long[BOUNDS_SECONDS.length];
  private static final int MIN_STATUS = 100;
  private static final int MAX_STATUS = 599;

  static {
    for (int i = 0; i < BOUNDS_SECONDS.length; i++) {
      BOUNDS_NANOS[i] = (long) (BOUNDS_SECONDS[i] * TimeUnit.SECONDS.toNanos(1));
    }
  }

  private final String route;
  private final String method;
  private final AtomicReferenceArray<Series> byStatus =
      new AtomicReferenceArray<>(MAX_STATUS - MIN_STATUS + 1);

  RequestMetrics(String route, String method) {
    this.route = route;
    this.method = method;
  }

  /** Records one finished request; a status outside 100..599 is counted as 599. */
  public void record(int status, long durationNanos) {
    int s = status < MIN_STATUS || status > MAX_STATUS ? MAX_STATUS : status;
    int slot = s - MIN_STATUS;
    Series series = byStatus.get(slot);
    if (series == null) {
      byStatus.compareAndSet(slot, null, new Series());
      series = byStatus.get(slot);
    }
    series.add(Math.max(0, durationNanos));
  }

  /** Requests recorded with this status so far. */
  public long count(int status) {
    if (status < MIN_STATUS || status > MAX_STATUS) {
      return 0;
    }
    Series series = byStatus.get(status - MIN_STATUS);
    return series == null ? 0 : series.count.sum();
  }

  /** Requests recorded so far, whatever their status. */
  public long total() {
    long total = 0;
    for (int i = 0; i < byStatus.length(); i++) {
      Series series = byStatus.get(i);
      if (series != null) {
        total += series.count.sum();
      }
    }
    return total;
  }

  String route() {
    return route;
  }

  String method() {
    return method;
  }

  void writeCounts(StringBuilder out) {
    for (int i = 0; i < byStatus.length(); i++) {
      Series series = byStatus.get(i);
      if (series != null) {
        out.append("veil_http_requests_total");
        labels(out, i + MIN_STATUS, null);
        out.append(' ').append(series.count.sum()).append('\n');
      }
    }
  }

  void writeHistograms(StringBuilder out) {
    for (int i = 0; i < byStatus.length(); i++) {
      Series series = byStatus.get(i);
      if (series == null) {
        continue;
      }
      int status = i + MIN_STATUS;
      long cumulative = 0;
      for (int b = 0; b < BOUNDS_SECONDS.length; b++) {
        cumulative += series.buckets[b].sum();
        out.append("veil_http_request_duration_seconds_bucket");
        labels(out, status, BOUNDS_SECONDS[b]);
        out.append(' ').append(cumulative).append('\n');
      }
      long count = series.count.sum();
      out.append("veil_http_request_duration_seconds_bucket");
      labels(out, status, Double.POSITIVE_INFINITY);
      out.append(' ').append(Math.max(count, cumulative)).append('\n');
      out.append("veil_http_request_duration_seconds_sum");
      labels(out, status, null);
      out.append(' ');
      Metrics.appendNumber(out, series.sumNanos.sum() / 1e9);
      out.append('\n');
      out.append("veil_http_request_duration_seconds_count");
      labels(out, status, null);
      out.append(' ').append(Math.max(count, cumulative)).append('\n');
    }
  }

  private void labels(StringBuilder out, int status, Double le) {
    out.append("{route=\"");
    Metrics.appendLabelValue(out, route);
    out.append("\",method=\"");
    Metrics.appendLabelValue(out, method);
    out.append("\",status=\"").append(status).append('"');
    if (le != null) {
      out.append(",le=\"");
      Metrics.appendNumber(out, le);
      out.append('"');
    }
    out.append('}');
  }

  private static final class Series {
    final LongAdder count = new LongAdder();
    final LongAdder sumNanos = new LongAdder();
    final LongAdder[] buckets = new LongAdder[BOUNDS_NANOS.length];

    Series() {
      for (int i = 0; i < buckets.length; i++) {
        buckets[i] = new LongAdder();
      }
    }

    void add(long nanos) {
      // Buckets first, count last: a concurrent scrape then never sees more in a bucket than in
      // the count (it takes the larger of the two for +Inf).
      for (int i = 0; i < BOUNDS_NANOS.length; i++) {
        if (nanos <= BOUNDS_NANOS[i]) {
          buckets[i].increment();
          break;
        }
      }
      sumNanos.add(nanos);
      count.increment();
    }
  }
}
