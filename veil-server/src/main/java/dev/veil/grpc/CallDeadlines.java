package dev.veil.grpc;

import dev.veil.common.Deadline;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The {@link Deadline} of an admin call that reaches the store: {@code db.timeout} from the moment
 * the call arrived. {@link #ARRIVALS}, installed on the admin server, notes that moment in the
 * call's {@link Context} on the network thread, before the call waits for an admin worker; so the
 * time a call spends queued behind busy workers counts against its deadline, and a call that
 * reaches a worker after its deadline fails at once instead of starting a store call with a fresh
 * one. Without the note (a server built without it), the deadline starts when the handler runs.
 *
 * <p>Thread-safe.
 */
final class CallDeadlines {
  private static final Context.Key<Long> ARRIVED_NANOS = Context.key("veil-call-arrived-nanos");
  private static final LongSupplier TICKER = System::nanoTime;

  /** Notes when each call arrived, in its context. */
  static final ServerStreamTracer.Factory ARRIVALS =
      new ServerStreamTracer.Factory() {
        @Override
        public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
          long arrived = TICKER.getAsLong();
          return new ServerStreamTracer() {
            @Override
            public Context filterContext(Context context) {
              return context.withValue(ARRIVED_NANOS, arrived);
            }
          };
        }
      };

  private final Duration budget;

  /**
   * @param budget {@code db.timeout}
   */
  CallDeadlines(Duration budget) {
    this.budget = budget;
  }

  /** Runs {@code work} under the current call's deadline. */
  <T> T bound(Supplier<T> work) {
    Long arrived = ARRIVED_NANOS.get();
    Deadline deadline =
        arrived == null
            ? Deadline.after(budget, TICKER)
            : Deadline.startingAt(arrived, budget, TICKER);
    return deadline.run(work);
  }

  /** {@link #bound(Supplier)} for work without a result. */
  void bound(Runnable work) {
    bound(
        () -> {
          work.run();
          return null;
        });
  }
}
