package dev.veil.webhook;

import dev.veil.common.JobLock;
import dev.veil.common.StoreUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers every opt-out to every registered webhook, at least once (docs/spec.md 4.1), on its own
 * thread {@code veil-webhooks}: never on an event loop or a request's thread.
 *
 * <p>One node delivers at a time: the thread holds the store's job lock {@value #JOB} for as long
 * as it delivers ({@link JobLock#runHeld}); the other nodes try to take it every second (or {@code
 * pollInterval}, if longer) and get it once the holder stops or dies (on PostgreSQL the server
 * drops a dead session's lock at once). Holding it, the thread loads the webhooks and their durable
 * cursors, then loops: every second it checks that it still holds the lock and reloads the webhook
 * list (new ones start, deleted ones stop); each webhook's {@link WebhookLane} reads the opt-out
 * log after its cursor and sends; answers come back through a queue; cursors are written as they
 * move.
 *
 * <p>A store outage ends the holding (the lock is released) and the thread tries again after {@code
 * pollInterval}, from the stored cursors. Logs carry webhook ids and counts only.
 */
public final class WebhookDispatcher implements AutoCloseable {
  /** The job lock's name. */
  public static final String JOB = "webhook-delivery";

  private static final Logger LOG = LoggerFactory.getLogger(WebhookDispatcher.class);
  private static final long CHECK_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long TICK_MILLIS = 20;
  private static final long TAKEOVER_TRY_MILLIS = 1_000;
  private static final Duration STOP_GRACE = Duration.ofSeconds(2);

  private final WebhookStore store;
  private final JobLock lock;
  private final WebhookSender sender;
  private final Function<byte[], byte[]> advertisingIds;
  private final Clock clock;
  private final DeliverySettings settings;
  private final DeliveryListener listener;
  private final BlockingQueue<WebhookLane.Completion> completions = new LinkedBlockingQueue<>();
  private final Map<Long, WebhookLane> lanes = new LinkedHashMap<>(); // the delivery thread's
  private final Thread thread;
  private volatile boolean closed;
  private volatile boolean delivering;
  private volatile long oldestPendingMillis = -1;
  private boolean outage;

  /**
   * @param advertisingIds the advertising id of a first-level hash under the current salts
   * @param clock the time of the signature and of the lag measured
   */
  public WebhookDispatcher(
      WebhookStore store,
      JobLock lock,
      WebhookSender sender,
      Function<byte[], byte[]> advertisingIds,
      Clock clock,
      DeliverySettings settings,
      DeliveryListener listener) {
    this.store = store;
    this.lock = lock;
    this.sender = sender;
    this.advertisingIds = advertisingIds;
    this.clock = clock;
    this.settings = settings;
    this.listener = listener;
    this.thread = new Thread(this::run, "veil-webhooks");
    thread.setDaemon(true);
  }

  /** Starts the delivery thread. */
  public void start() {
    thread.start();
  }

  /** Whether this node delivers now (holds the lock). */
  public boolean delivering() {
    return delivering;
  }

  /**
   * Seconds since the oldest opt-out that this node is delivering and no receiver has acknowledged
   * yet was recorded; 0 when there is none, or this node does not deliver.
   */
  public double oldestUndeliveredSeconds() {
    long oldest = oldestPendingMillis;
    return oldest < 0 ? 0 : Math.max(0, clock.millis() - oldest) / 1000.0;
  }

  private void run() {
    while (!closed) {
      boolean held = false;
      try {
        held = lock.runHeld(JOB, this::deliverWhileHeld).isPresent();
        if (outage) {
          outage = false;
          LOG.info("event=store_reachable job={}", JOB);
        }
      } catch (StoreUnavailableException e) {
        if (!closed && !outage) {
          outage = true;
          LOG.warn("event=store_unreachable job={} detail=\"{}\"", JOB, e.getMessage());
        }
      } catch (RuntimeException e) {
        LOG.error(
            "event=job_failed job={} error={} detail=\"{}\"",
            JOB,
            e.getClass().getName(),
            e.getMessage());
      } finally {
        lanes.clear();
        completions.clear();
        delivering = false;
        oldestPendingMillis = -1;
      }
      // Another node delivers: try again at most once a second (on PostgreSQL each try opens a
      // session), so a takeover comes within about a second of the holder's death.
      pause(
          held
              ? settings.pollInterval().toMillis()
              : Math.max(TAKEOVER_TRY_MILLIS, settings.pollInterval().toMillis()));
    }
  }

  private boolean deliverWhileHeld(BooleanSupplier held) {
    delivering = true;
    LOG.info("event=webhook_delivery_started");
    long nextCheck = System.nanoTime() + CHECK_EVERY_NANOS;
    reloadWebhooks();
    try {
      while (!closed) {
        long now = System.nanoTime();
        if (now - nextCheck >= 0) {
          if (!held.getAsBoolean()) {
            LOG.warn("event=webhook_delivery_lost_lock");
            return false;
          }
          reloadWebhooks();
          nextCheck = now + CHECK_EVERY_NANOS;
        }
        for (WebhookLane lane : lanes.values()) {
          lane.pump(now, completions::add);
        }
        applyCompletions(TICK_MILLIS);
        now = System.nanoTime();
        for (WebhookLane lane : lanes.values()) {
          lane.persistIfDue(now, false);
        }
        publishOldest();
      }
      finishInFlight();
      return true;
    } finally {
      LOG.info("event=webhook_delivery_stopped");
    }
  }

  /** On a stop: waits a little for answers in flight, then writes the cursors. */
  private void finishInFlight() {
    long deadline = System.nanoTime() + STOP_GRACE.toNanos();
    while (lanes.values().stream().anyMatch(l -> l.inFlight() > 0)
        && System.nanoTime() < deadline) {
      applyCompletions(TICK_MILLIS);
    }
    long now = System.nanoTime();
    for (WebhookLane lane : lanes.values()) {
      lane.persistIfDue(now, true);
    }
  }

  private void applyCompletions(long waitMillis) {
    WebhookLane.Completion c;
    try {
      c = completions.poll(waitMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
      return;
    }
    long now = System.nanoTime();
    while (c != null) {
      if (lanes.get(c.lane().id()) == c.lane()) { // else: a deleted webhook's late answer
        c.lane().complete(c.item(), c.outcome(), now);
      }
      c = completions.poll();
    }
  }

  private void reloadWebhooks() {
    Map<Long, WebhookLane> next = new HashMap<>();
    for (WebhookStore.Registered r : store.active()) {
      WebhookLane lane = lanes.get(r.webhook().id());
      next.put(
          r.webhook().id(),
          lane != null
              ? lane
              : new WebhookLane(r, store, sender, advertisingIds, clock, settings, listener));
    }
    lanes.keySet().retainAll(next.keySet());
    next.forEach(lanes::putIfAbsent);
  }

  private void publishOldest() {
    long oldest = -1;
    for (WebhookLane lane : lanes.values()) {
      Optional<Instant> pending = lane.oldestPending();
      if (pending.isPresent() && (oldest < 0 || pending.get().toEpochMilli() < oldest)) {
        oldest = pending.get().toEpochMilli();
      }
    }
    oldestPendingMillis = oldest;
  }

  private void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  /**
   * Stops delivering: answers in flight get up to 2 s, the cursors are written, the lock is
   * released. Waits for the thread up to 5 s.
   */
  @Override
  public void close() {
    closed = true;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
