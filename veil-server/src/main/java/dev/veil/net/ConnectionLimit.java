package dev.veil.net;

import dev.veil.observability.Counter;
import dev.veil.observability.Metrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many connections the node holds open at once, over all its listeners: the public HTTP API and
 * the admin gRPC port count against one limit ({@code limits.max-connections}), which by default is
 * what the process's file-descriptor limit leaves after the descriptors the node itself needs
 * ({@link DescriptorBudget}). So a flood of connections never makes {@code accept} fail with "Too
 * many open files": health checks and good clients are answered or refused cleanly.
 *
 * <h2>Design note</h2>
 *
 * <p>A listener asks {@link #admit} for a {@link ConnectionSlot} as soon as it has accepted a
 * connection, before reading from it, and the slot is released when the connection has closed. Open
 * connections, those being closed included, never exceed {@code max}: a newcomer beyond it is
 * refused, closed before anything is read from it. Below the high-water mark, {@code max} less a
 * headroom of a quarter (at least one), admitting is one atomic increment and one set insertion.
 *
 * <p>Above the high-water mark, newcomers are let in by <em>shedding</em>: the connections that
 * have been waiting longest (idle between requests, or still sending a request's head or body) are
 * closed, the oldest first, so that the headroom stays free for the next newcomers while they
 * close. A connection whose request is being answered is never shed; when every connection is being
 * answered, newcomers fill the headroom and then are refused. Shedding rather than only refusing,
 * because the connections that fill a node are those that hold their place without completing a
 * request: refused newcomers would find every place taken back by the holders' next connections as
 * soon as a timeout frees one, and a good client would be turned away nearly every time. Shed
 * instead, the holders lose their oldest connections to the newcomers, whose requests usually
 * arrive at once and are then answered. What is lost is what a server closes anyway: connections
 * that have done nothing for the longest time. A shed connection closes on its own thread a moment
 * later and holds its descriptor (and its place) until then, so a burst of newcomers larger than
 * the headroom, arriving faster than the shed ones close, is partly refused.
 *
 * <p>Finding the oldest looks at every open connection, so one search sheds a batch, the {@code
 * max(1, max / 64)} oldest waiting connections: under a flood of new connections the search runs
 * once per batch. Searches are serialized.
 *
 * <p>Thread-safe.
 */
public final class ConnectionLimit {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimit.class);
  private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** Newest first (a later {@link System#nanoTime()}), compared as the JDK asks: by difference. */
  private static final Comparator<Candidate> NEWEST_FIRST =
      (a, b) -> Long.signum(b.since() - a.since());

  private final int max;
  private final int highWater;
  private final int batch;

  /** Admitted connections not yet closed, shed ones included. */
  private final AtomicInteger open = new AtomicInteger();

  /** Shed connections not yet closed. */
  private final AtomicInteger closing = new AtomicInteger();

  private final Set<ConnectionSlot> slots = ConcurrentHashMap.newKeySet();
  private final Counter shed;
  private final Counter refused;
  private final AtomicLong nextReport = new AtomicLong(System.nanoTime());

  /**
   * @param max connections open at once, at least 1
   * @param metrics where the open count, the limit and the shed and refused connections are
   *     exported ({@code veil_connections_*})
   */
  public ConnectionLimit(int max, Metrics metrics) {
    if (max < 1) {
      throw new IllegalArgumentException("the connection limit must be at least 1");
    }
    this.max = max;
    this.highWater = max - Math.max(1, max / 4);
    this.batch = Math.max(1, max / 64);
    this.shed =
        metrics.counter(
            "veil_connections_shed_total",
            "Waiting connections closed to keep room for new connections at the connection limit.");
    this.refused =
        metrics.counter(
            "veil_connections_refused_total",
            "New connections closed at once: the connection limit was reached.");
    metrics.gauge(
        "veil_connections_open",
        "Connections open on the HTTP and admin gRPC listeners.",
        open::get);
    metrics.gauge(
        "veil_connections_max", "The connection limit (limits.max-connections).", () -> max);
  }

  /**
   * The node's limit: {@code configured}, or when it is 0 what the file-descriptor limit allows
   * ({@link DescriptorBudget}). Logs the limit and where it comes from.
   */
  public static ConnectionLimit forNode(int configured, Metrics metrics) {
    DescriptorBudget budget = DescriptorBudget.ofThisProcess();
    int max = configured > 0 ? configured : budget.connections();
    LOG.info(
        "event=connection_limit max={} source={} descriptor_limit={} descriptors_open={}",
        max,
        configured > 0 ? "limits.max-connections" : "descriptors",
        budget.limitText(),
        budget.openText());
    if (configured > budget.connections()) {
      LOG.warn(
          "event=connection_limit_above_descriptors max={} descriptors_allow={}",
          max,
          budget.connections());
    }
    return new ConnectionLimit(max, metrics);
  }

  /**
   * Admits a connection just accepted, shedding the longest-waiting ones above the high-water mark.
   *
   * @param close closes the connection if it is shed later; must be callable from any thread
   * @return the connection's slot, or null if it is refused: {@code max} connections are open (the
   *     caller closes it at once)
   */
  public ConnectionSlot admit(Runnable close) {
    int n = open.incrementAndGet();
    if (n > max) {
      open.decrementAndGet();
      shedAboveHighWater();
      refused.inc();
      report();
      return null;
    }
    if (n - closing.get() > highWater) {
      shedAboveHighWater(); // before the newcomer joins the candidates
    }
    ConnectionSlot slot = new ConnectionSlot(this, close, System.nanoTime());
    slots.add(slot);
    return slot;
  }

  /**
   * While more than the high-water mark are open and not closing, closes a batch of the
   * longest-waiting.
   */
  private synchronized void shedAboveHighWater() {
    if (open.get() - closing.get() <= highWater) {
      return; // another thread shed meanwhile
    }
    int claimed = 0;
    for (Candidate candidate : oldestWaiting()) {
      ConnectionSlot slot = candidate.slot();
      if (slot.claim()) {
        slots.remove(slot);
        closing.incrementAndGet();
        claimed++;
        closeQuietly(slot);
      }
    }
    shed.add(claimed);
    report();
  }

  /** The batch of longest-waiting connections, by the time each began to wait as read once here. */
  private List<Candidate> oldestWaiting() {
    PriorityQueue<Candidate> oldest = new PriorityQueue<>(batch + 1, NEWEST_FIRST);
    for (ConnectionSlot slot : slots) {
      if (slot.isWaiting()) {
        oldest.add(new Candidate(slot, slot.waitingSince()));
        if (oldest.size() > batch) {
          oldest.poll();
        }
      }
    }
    return new ArrayList<>(oldest);
  }

  private record Candidate(ConnectionSlot slot, long since) {}

  private static void closeQuietly(ConnectionSlot slot) {
    try {
      slot.close();
    } catch (RuntimeException e) {
      // The connection then closes by its listener's own timeouts, and gives its place back then.
      LOG.debug("event=connection_shed_failed error={}", e.getClass().getSimpleName());
    }
  }

  /** Logs that the limit was reached: the first time, then at most once a minute. */
  private void report() {
    long next = nextReport.get();
    long now = System.nanoTime();
    if (now - next >= 0 && nextReport.compareAndSet(next, now + LOG_INTERVAL_NANOS)) {
      LOG.warn(
          "event=connection_limit_reached max={} shed_total={} refused_total={}",
          max,
          shed.get(),
          refused.get());
    }
  }

  /** A connection that was not shed has closed. */
  void released(ConnectionSlot slot) {
    slots.remove(slot);
    open.decrementAndGet();
  }

  /** A shed connection has closed. */
  void shedClosed() {
    closing.decrementAndGet();
    open.decrementAndGet();
  }

  /** The limit. */
  public int max() {
    return max;
  }

  /** Connections open now, those being closed included. */
  public int open() {
    return open.get();
  }
}
