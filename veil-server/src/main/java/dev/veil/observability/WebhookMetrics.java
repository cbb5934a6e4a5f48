package dev.veil.observability;

import dev.veil.webhook.DeliveryListener;
import dev.veil.webhook.WebhookSender;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

/**
 * Webhook delivery in {@code /metrics} (docs/spec.md 4.1), on the node that delivers:
 *
 * <ul>
 *   <li>{@code veil_webhook_requests_total{outcome}}: requests by outcome, {@code delivered} (2xx),
 *       {@code refused} (another status) or {@code unreachable} (no answer in time);
 *   <li>{@code veil_webhook_delivery_lag_seconds}: a histogram of the time from an opt-out's record
 *       to its receiver's 2xx;
 *   <li>{@code veil_webhook_oldest_undelivered_seconds}: the age of the oldest opt-out being
 *       delivered and not yet acknowledged (0 when none); alert when it grows.
 * </ul>
 *
 * No label holds a webhook id, a URL or an advertising id. Thread-safe.
 */
public final class WebhookMetrics implements DeliveryListener {
  private static final double[] BUCKETS = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600};
  private static final String LAG = "veil_webhook_delivery_lag_seconds";

  private final Map<WebhookSender.Outcome, Counter> outcomes =
      new EnumMap<>(WebhookSender.Outcome.class);
  private final LongAdder[] buckets = new LongAdder[BUCKETS.length];
  private final LongAdder count = new LongAdder();
  private final LongAdder sumMillis = new LongAdder();

  private final Metrics metrics;

  /** Registers the request and lag series in {@code metrics}. */
  public WebhookMetrics(Metrics metrics) {
    this.metrics = metrics;
    CounterFamily family =
        metrics.counterFamily(
            "veil_webhook_requests_total",
            "Webhook requests sent by this node, by outcome: delivered (2xx), refused (another"
                + " status), unreachable (no answer in time).",
            "outcome");
    for (WebhookSender.Outcome o : WebhookSender.Outcome.values()) {
      outcomes.put(o, family.labels(o.name().toLowerCase(Locale.ROOT)));
    }
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = new LongAdder();
    }
    metrics.collector(this::writeLag);
  }

  /** Registers the gauge of the oldest undelivered opt-out, read from {@code oldest}. */
  public void watchOldest(DoubleSupplier oldest) {
    metrics.gauge(
        "veil_webhook_oldest_undelivered_seconds",
        "Age of the oldest opt-out this node is delivering that no receiver acknowledged yet.",
        oldest);
  }

  @Override
  public void delivered(Duration lag) {
    outcomes.get(WebhookSender.Outcome.DELIVERED).inc();
    long millis = Math.max(0, lag.toMillis());
    double seconds = millis / 1000.0;
    for (int i = 0; i < BUCKETS.length; i++) {
      if (seconds <= BUCKETS[i]) {
        buckets[i].increment();
        break;
      }
    }
    count.increment();
    sumMillis.add(millis);
  }

  @Override
  public void failed(WebhookSender.Outcome outcome) {
    outcomes.get(outcome).inc();
  }

  private void writeLag(StringBuilder out) {
    Metrics.appendHelp(
        out, LAG, "Time from an opt-out's record to its webhook receiver's 2xx.", "histogram");
    long cumulative = 0;
    for (int i = 0; i < BUCKETS.length; i++) {
      cumulative += buckets[i].sum();
      out.append(LAG).append("_bucket{le=\"");
      Metrics.appendNumber(out, BUCKETS[i]);
      out.append("\"} ").append(cumulative).append('\n');
    }
    long total = count.sum();
    out.append(LAG).append("_bucket{le=\"+Inf\"} ").append(total).append('\n');
    out.append(LAG).append("_sum ");
    Metrics.appendNumber(out, sumMillis.sum() / 1000.0);
    out.append('\n').append(LAG).append("_count ").append(total).append('\n');
  }
}
