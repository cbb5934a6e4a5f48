package dev.veil.testing;

import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionEvent;
import dev.veil.grpc.deduction.v1.WatchDeductionsReq;
import io.grpc.Channel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One {@code WatchDeductions} stream, as a watcher sees it: the events in arrival order, and how
 * the stream ended (its status; OK if the server completed it). {@link #close()} cancels it.
 */
public final class DeductionWatcher implements AutoCloseable {
  private final BlockingQueue<DeductionEvent> events = new LinkedBlockingQueue<>();
  private final CompletableFuture<Status> ended = new CompletableFuture<>();
  private volatile ClientCallStreamObserver<WatchDeductionsReq> call;

  private DeductionWatcher() {}

  /** Opens a stream on {@code channel} with {@code apiKey}, after {@code resumeToken}. */
  public static DeductionWatcher start(Channel channel, String apiKey, String resumeToken) {
    Metadata headers = new Metadata();
    headers.put(RunningAdminServer.AUTHORIZATION, "Bearer " + apiKey);
    DeductionWatcher watcher = new DeductionWatcher();
    DeductionAdminApiGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
        .watchDeductions(
            WatchDeductionsReq.newBuilder().setResumeToken(resumeToken).build(),
            watcher.observer());
    return watcher;
  }

  private ClientResponseObserver<WatchDeductionsReq, DeductionEvent> observer() {
    return new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<WatchDeductionsReq> requestStream) {
        call = requestStream;
      }

      @Override
      public void onNext(DeductionEvent event) {
        events.add(event);
      }

      @Override
      public void onError(Throwable t) {
        ended.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        ended.complete(Status.OK);
      }
    };
  }

  /**
   * The next {@code count} events, waiting up to {@code timeout} for them all.
   *
   * @throws AssertionError if they do not all arrive in time, naming how many did
   */
  public List<DeductionEvent> take(int count, Duration timeout) throws InterruptedException {
    List<DeductionEvent> taken = new ArrayList<>(count);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (taken.size() < count) {
      DeductionEvent e = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (e == null) {
        throw new AssertionError(
            "expected "
                + count
                + " events within "
                + timeout
                + ", got "
                + taken.size()
                + (ended.isDone() ? "; the stream ended with " + ended.join() : ""));
      }
      taken.add(e);
    }
    return taken;
  }

  /** The events that arrived and were not taken yet. */
  public List<DeductionEvent> drain() {
    List<DeductionEvent> drained = new ArrayList<>();
    events.drainTo(drained);
    return drained;
  }

  /** How the stream ended, waiting up to {@code timeout}. */
  public Status awaitEnd(Duration timeout) throws InterruptedException {
    try {
      return ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    } catch (TimeoutException e) {
      throw new AssertionError("the stream did not end within " + timeout, e);
    }
  }

  public boolean hasEnded() {
    return ended.isDone();
  }

  @Override
  public void close() {
    ClientCallStreamObserver<WatchDeductionsReq> c = call;
    if (c != null && !ended.isDone()) {
      c.cancel("the watcher closed", null);
    }
  }
}
