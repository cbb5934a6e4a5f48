package dev.veil.testing;

import dev.veil.audit.AuditLog;
import dev.veil.webhook.LogPosition;
import dev.veil.webhook.LoggedOptOut;
import dev.veil.webhook.Webhook;
import dev.veil.webhook.WebhookSecret;
import dev.veil.webhook.WebhookStore;
import dev.veil.webhook.WebhookUrl;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * {@link WebhookStore} in memory, for {@link InMemoryStores}: the opt-out log is the stores'
 * opt-outs in seq order (xid 0), as on the embedded store.
 */
final class InMemoryWebhookStore implements WebhookStore {
  private final TreeMap<Long, Row> rows = new TreeMap<>();
  private final BiFunction<Long, Integer, List<LoggedOptOut>> optOutsAfterSeq;
  private final java.util.function.LongSupplier lastSeq;
  private long nextId = 1;

  private static final class Row {
    final Webhook webhook;
    final WebhookSecret secret;
    LogPosition delivered;
    boolean disabled;

    Row(Webhook webhook, WebhookSecret secret, LogPosition delivered) {
      this.webhook = webhook;
      this.secret = secret;
      this.delivered = delivered;
    }
  }

  InMemoryWebhookStore(
      BiFunction<Long, Integer, List<LoggedOptOut>> optOutsAfterSeq,
      java.util.function.LongSupplier lastSeq) {
    this.optOutsAfterSeq = optOutsAfterSeq;
    this.lastSeq = lastSeq;
  }

  @Override
  public synchronized Webhook insert(
      long clientId, WebhookUrl url, WebhookSecret secret, Instant createdAt) {
    Webhook w = new Webhook(nextId++, clientId, url, createdAt);
    AuditLog.assignedId(w.id());
    rows.put(w.id(), new Row(w, secret, new LogPosition(0, lastSeq.getAsLong())));
    return w;
  }

  @Override
  public synchronized List<Webhook> list() {
    return rows.values().stream().filter(r -> !r.disabled).map(r -> r.webhook).toList();
  }

  @Override
  public synchronized List<Registered> active() {
    List<Registered> active = new ArrayList<>();
    rows.values().stream()
        .filter(r -> !r.disabled)
        .forEach(r -> active.add(new Registered(r.webhook, r.secret, r.delivered)));
    return active;
  }

  @Override
  public synchronized boolean disable(long id, Instant at) {
    Row row = rows.get(id);
    if (row == null || row.disabled) {
      return false;
    }
    row.disabled = true;
    return true;
  }

  @Override
  public synchronized boolean advance(long id, LogPosition to, Instant at) {
    Row row = rows.get(id);
    if (row == null || row.disabled || row.delivered.compareTo(to) >= 0) {
      return false;
    }
    row.delivered = to;
    return true;
  }

  @Override
  public List<LoggedOptOut> optOutsAfter(LogPosition after, int limit) {
    return optOutsAfterSeq.apply(after.seq(), limit);
  }
}
