package dev.veil.webhook;

import dev.veil.core.webhook.WebhookSignature;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery to one webhook, driven by {@link WebhookDispatcher} on its thread (not thread-safe: only
 * that thread calls it). Design note:
 *
 * <ul>
 *   <li>The <em>window</em> holds the opt-outs read from the log after the durable cursor, in log
 *       order, each waiting, in flight or acknowledged. Reads fill it a page at a time.
 *   <li>While the receiver answers 2xx, up to {@code concurrency} requests are in flight; after a
 *       failure, one at a time (the earliest unacknowledged opt-out), after a backoff that doubles
 *       with each failure up to {@code maxBackoff}. Failures while a backoff runs (requests that
 *       were in flight together) do not lengthen it.
 *   <li>The cursor moves over the acknowledged prefix of the window only, and is written to the
 *       store at most every {@value #PERSIST_EVERY_MS} ms (and whenever the window empties). Acks
 *       beyond the prefix are held in memory: they are sent again only if this node stops or loses
 *       delivery before the prefix reaches them. So a receiver gets an opt-out twice only across a
 *       stop, a crash or a takeover, never because another request failed.
 * </ul>
 */
final class WebhookLane {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookLane.class);
  private static final long PERSIST_EVERY_MS = 200;
  private static final String METHOD = "GET";

  /** One opt-out in the window. */
  static final class Item {
    final LoggedOptOut optOut;
    boolean inFlight;
    boolean acknowledged;

    Item(LoggedOptOut optOut) {
      this.optOut = optOut;
    }
  }

  private final Webhook webhook;
  private final WebhookSecret secret;
  private final WebhookStore store;
  private final WebhookSender sender;
  private final Function<byte[], byte[]> advertisingIds;
  private final Clock clock;
  private final DeliverySettings settings;
  private final DeliveryListener listener;
  private final ArrayDeque<Item> window = new ArrayDeque<>();
  private LogPosition acknowledged;
  private LogPosition stored;
  private LogPosition readTo;
  private boolean caughtUp;
  private long nextPollNanos;
  private int inFlight;
  private int failures;
  private long retryAtNanos;
  private long lastPersistNanos;

  WebhookLane(
      WebhookStore.Registered registered,
      WebhookStore store,
      WebhookSender sender,
      Function<byte[], byte[]> advertisingIds,
      Clock clock,
      DeliverySettings settings,
      DeliveryListener listener) {
    this.webhook = registered.webhook();
    this.secret = registered.secret();
    this.store = store;
    this.sender = sender;
    this.advertisingIds = advertisingIds;
    this.clock = clock;
    this.settings = settings;
    this.listener = listener;
    this.acknowledged = registered.delivered();
    this.stored = registered.delivered();
    this.readTo = registered.delivered();
  }

  long id() {
    return webhook.id();
  }

  /** Reads from the log when the window runs low, then sends what it may now. */
  void pump(long nowNanos, Consumer<Completion> completions) {
    if (window.size() <= settings.batchSize() / 2 && (!caughtUp || nowNanos >= nextPollNanos)) {
      List<LoggedOptOut> page = store.optOutsAfter(readTo, settings.batchSize());
      for (LoggedOptOut o : page) {
        window.addLast(new Item(o));
        readTo = o.position();
      }
      caughtUp = page.size() < settings.batchSize();
      nextPollNanos = nowNanos + settings.pollInterval().toNanos();
    }
    if (nowNanos < retryAtNanos) {
      return;
    }
    int limit = failures > 0 ? 1 : settings.concurrency();
    for (Item item : window) {
      if (inFlight >= limit) {
        return;
      }
      if (!item.inFlight && !item.acknowledged) {
        send(item, completions);
      }
    }
  }

  private void send(Item item, Consumer<Completion> completions) {
    String advertisingId =
        Base64.getEncoder().encodeToString(advertisingIds.apply(item.optOut.firstLevelHash()));
    URI uri = webhook.url().render(advertisingId, item.optOut.optedOutAt().getEpochSecond());
    long now = clock.instant().getEpochSecond();
    Map<String, String> headers =
        Map.of(
            WebhookSignature.TIMESTAMP_HEADER,
            Long.toString(now),
            WebhookSignature.SIGNATURE_HEADER,
            secret.sign(now, METHOD, WebhookUrl.requestTarget(uri)));
    item.inFlight = true;
    inFlight++;
    // The completion goes to the queue, whatever the outcome; nothing else waits for the future.
    var unused =
        sender
            .send(uri, headers)
            .whenComplete(
                (outcome, error) ->
                    completions.accept(
                        new Completion(
                            this,
                            item,
                            outcome == null ? WebhookSender.Outcome.UNREACHABLE : outcome)));
  }

  /** Applies the receiver's answer to one request. */
  void complete(Item item, WebhookSender.Outcome outcome, long nowNanos) {
    item.inFlight = false;
    inFlight--;
    if (outcome == WebhookSender.Outcome.DELIVERED) {
      item.acknowledged = true;
      if (failures > 0) {
        LOG.info("event=webhook_delivery_recovered webhook={} failures={}", id(), failures);
      }
      failures = 0;
      retryAtNanos = 0;
      listener.delivered(Duration.between(item.optOut.optedOutAt(), clock.instant()));
      while (!window.isEmpty() && window.peekFirst().acknowledged) {
        acknowledged = window.pollFirst().optOut.position();
      }
      return;
    }
    listener.failed(outcome);
    if (nowNanos >= retryAtNanos) {
      failures++;
      Duration wait = settings.backoff(failures);
      retryAtNanos = nowNanos + wait.toNanos();
      if (Integer.bitCount(failures) == 1) { // 1, 2, 4, 8...: a failing receiver logs rarely
        LOG.warn(
            "event=webhook_delivery_failed webhook={} outcome={} failures={} retry_ms={}",
            id(),
            outcome.name().toLowerCase(java.util.Locale.ROOT),
            failures,
            wait.toMillis());
      }
    }
  }

  /** Writes the cursor if it moved and enough time has passed (or the window is empty). */
  void persistIfDue(long nowNanos, boolean force) {
    if (acknowledged.compareTo(stored) <= 0) {
      return;
    }
    boolean due =
        force || window.isEmpty() || nowNanos - lastPersistNanos >= PERSIST_EVERY_MS * 1_000_000L;
    if (due) {
      store.advance(id(), acknowledged, clock.instant());
      stored = acknowledged;
      lastPersistNanos = nowNanos;
    }
  }

  /** When the oldest opt-out not yet acknowledged was recorded, if one is known. */
  Optional<Instant> oldestPending() {
    for (Item item : window) {
      if (!item.acknowledged) {
        return Optional.of(item.optOut.optedOutAt());
      }
    }
    return Optional.empty();
  }

  int inFlight() {
    return inFlight;
  }

  /** A request's answer, handed from the sender's thread to the delivery thread. */
  record Completion(WebhookLane lane, Item item, WebhookSender.Outcome outcome) {}
}
