package dev.veil.webhook;

import java.time.Instant;
import java.util.List;

/**
 * Durable webhooks and their delivery cursors, and the opt-out log read in delivery order.
 * Thread-safe; writes are durable on return; a store that cannot be reached throws {@link
 * dev.veil.common.StoreUnavailableException}.
 *
 * <p>The log's order, ascending {@link LogPosition}, only ever grows at its end: a page read after
 * a position never later gains an opt-out before its last one. (The embedded store has one writer
 * at a time, so seq order is commit order; PostgreSQL hands out seqs before commit, so its order is
 * by writing transaction and only transactions older than every running one are read.) So a cursor
 * moved past an acknowledged opt-out never skips one recorded later.
 */
public interface WebhookStore {
  /**
   * Stores a new webhook whose cursor is the end of the log now: it receives the opt-outs recorded
   * after the insert (and possibly a few committed just before it).
   */
  Webhook insert(long clientId, WebhookUrl url, WebhookSecret secret, Instant createdAt);

  /** Every webhook not deleted, by id. */
  List<Webhook> list();

  /** Every webhook not deleted, by id, with what delivery needs. */
  List<Registered> active();

  /**
   * Marks the webhook deleted at {@code at}; false if there is none (or it was deleted already).
   */
  boolean disable(long id, Instant at);

  /**
   * Moves the webhook's cursor forward to {@code to}, never back: returns false and changes nothing
   * if the cursor is at or past it already, or the webhook is gone.
   */
  boolean advance(long id, LogPosition to, Instant at);

  /** Up to {@code limit} opt-outs after {@code after}, in log order. */
  List<LoggedOptOut> optOutsAfter(LogPosition after, int limit);

  /** A webhook with its secret and where its receiver stands in the log. */
  record Registered(Webhook webhook, WebhookSecret secret, LogPosition delivered) {}
}
