package dev.veil.grpc;

import dev.veil.common.Deadline;
import dev.veil.common.StoreUnavailableException;
import dev.veil.deduction.DeductionEvent;
import dev.veil.deduction.DeductionService;
import dev.veil.deduction.EventPosition;
import dev.veil.deduction.ResumeToken;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open {@code WatchDeductions} streams of a node. Each stream reads the change log after its
 * position, sends what it read and reads again: at once when a change was made through this node
 * (the service tells every change it commits), otherwise every {@code interval}, so a change made
 * through another node arrives within about one interval. A stream reads only while its caller
 * keeps up (gRPC flow control): a slow watcher holds no more than one read of {@value #BATCH}
 * events in memory. While the store cannot be read a stream waits and tries again, each wait twice
 * as long up to {@value #MAX_RETRY_SECONDS} s; nothing is lost, the position stays where it was.
 *
 * <p>One thread reads for every stream, one read at a time: watching is for operators and their
 * tools, a few streams per node ({@value #MAX_WATCHERS} at most).
 */
final class DeductionWatches implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DeductionWatches.class);

  /** The most events one read takes from the store. */
  static final int BATCH = 256;

  /** The most streams open at once on one node; more are refused RESOURCE_EXHAUSTED. */
  static final int MAX_WATCHERS = 64;

  private static final int MAX_RETRY_SECONDS = 10;

  private final DeductionService deductions;
  private final Duration interval;
  private final Duration timeout;
  private final ScheduledExecutorService reader;
  private final Set<Watch> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /**
   * @param interval how often a stream reads the log when nothing was changed through this node
   * @param timeout {@code db.timeout}: the longest one read may take
   */
  DeductionWatches(DeductionService deductions, Duration interval, Duration timeout) {
    this.deductions = deductions;
    this.interval = interval;
    this.timeout = timeout;
    this.reader =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "veil-deduction-watch");
              t.setDaemon(true);
              return t;
            });
    deductions.onChange(this::wakeAll);
  }

  /** Starts a stream after {@code resumeToken} (empty: from the start), or refuses it. */
  void watch(String resumeToken, StreamObserver<dev.veil.grpc.deduction.v1.DeductionEvent> out) {
    var stream = (ServerCallStreamObserver<dev.veil.grpc.deduction.v1.DeductionEvent>) out;
    var position = ResumeToken.parse(resumeToken);
    if (position.isEmpty()) {
      out.onError(
          Status.INVALID_ARGUMENT
              .withDescription("resume_token is not a token from an event of WatchDeductions")
              .asRuntimeException());
      return;
    }
    if (closed) {
      out.onError(unavailable());
      return;
    }
    if (open.size() >= MAX_WATCHERS) {
      out.onError(
          Status.RESOURCE_EXHAUSTED
              .withDescription(
                  "this node already serves "
                      + MAX_WATCHERS
                      + " WatchDeductions streams; close one or watch through another node")
              .asRuntimeException());
      return;
    }
    Watch watch = new Watch(stream, position.get());
    open.add(watch);
    stream.setOnCancelHandler(watch::cancel);
    stream.setOnReadyHandler(watch::wake);
    watch.wake();
  }

  private void wakeAll() {
    open.forEach(Watch::wake);
  }

  /** Ends every stream with UNAVAILABLE (the node is stopping), and refuses new ones. */
  @Override
  public void close() {
    closed = true;
    reader.shutdownNow();
    open.forEach(Watch::end);
  }

  private static RuntimeException unavailable() {
    return Status.UNAVAILABLE
        .withDescription("the node is stopping; reconnect with the last resume_token")
        .asRuntimeException();
  }

  /** One stream: its position, and at most one read queued or running. */
  private final class Watch {
    private final ServerCallStreamObserver<dev.veil.grpc.deduction.v1.DeductionEvent> stream;
    private final AtomicBoolean queued = new AtomicBoolean();
    private EventPosition position;
    private ScheduledFuture<?> next;
    private boolean done;
    private int failures;

    Watch(
        ServerCallStreamObserver<dev.veil.grpc.deduction.v1.DeductionEvent> stream,
        EventPosition position) {
      this.stream = stream;
      this.position = position;
    }

    /** Reads as soon as the reader is free. */
    void wake() {
      if (queued.compareAndSet(false, true)) {
        try {
          reader.execute(this::read);
        } catch (RejectedExecutionException stopping) {
          queued.set(false);
        }
      }
    }

    private synchronized void read() {
      queued.set(false);
      if (done || closed) {
        return;
      }
      if (next != null) {
        next.cancel(false);
        next = null;
      }
      if (!stream.isReady()) {
        return; // the on-ready handler wakes it when the caller has taken what was sent
      }
      List<DeductionEvent> events;
      try {
        events = Deadline.after(timeout).run(() -> deductions.eventsAfter(position, BATCH));
      } catch (StoreUnavailableException e) {
        if (failures++ == 0) {
          LOG.warn("event=deduction_watch_store_unavailable detail=\"{}\"", e.getMessage());
        }
        schedule(Duration.ofSeconds(Math.min(MAX_RETRY_SECONDS, 1L << Math.min(failures - 1, 4))));
        return;
      }
      failures = 0;
      for (DeductionEvent e : events) {
        stream.onNext(DeductionAdminService.event(e));
        position = e.position();
      }
      if (events.size() == BATCH) {
        wake();
      } else {
        schedule(interval);
      }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // kept in next; cancelled by the next read
    private void schedule(Duration delay) {
      try {
        next = reader.schedule(this::wake, delay.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException stopping) {
        // close() ends the stream
      }
    }

    synchronized void cancel() {
      done = true;
      open.remove(this);
      if (next != null) {
        next.cancel(false);
      }
    }

    synchronized void end() {
      if (!done) {
        cancel();
        try {
          stream.onError(unavailable());
        } catch (IllegalStateException alreadyCancelled) {
          // the caller went away meanwhile: nothing to tell
        }
      }
    }
  }
}
