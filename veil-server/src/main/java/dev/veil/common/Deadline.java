package dev.veil.common;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The moment by which a request that reaches the store must have its answer: taken once, when the
 * request arrives ({@code db.timeout} from then), and carried to the store on the thread that does
 * the work, so that each stage on the way (the queue for a worker thread, a service's lock, the
 * wait for a pooled connection, its check, the statements) gets only what the stages before it
 * left. However many requests wait together, each is answered by its own deadline.
 *
 * <p>The deadline travels with the thread ({@link #run}), as gRPC's {@code Context} carries its
 * deadline: the store is reached through domain services that know nothing of requests, and a
 * parameter would have to pass through every one of their methods. Work that runs without one (the
 * start, the node's catch-up and jobs, rotations by hand) keeps the store's own bounds on each
 * step.
 *
 * <p>Immutable and thread-safe. Time is a monotonic nanosecond ticker ({@code System::nanoTime} in
 * production), injected for tests.
 */
public final class Deadline {
  private static final ThreadLocal<Deadline> CURRENT = new ThreadLocal<>();

  private final long atNanos;
  private final Duration budget;
  private final LongSupplier ticker;

  private Deadline(long atNanos, Duration budget, LongSupplier ticker) {
    this.atNanos = atNanos;
    this.budget = budget;
    this.ticker = ticker;
  }

  /** {@code budget} from now. */
  public static Deadline after(Duration budget) {
    return after(budget, System::nanoTime);
  }

  /** {@code budget} from now on {@code ticker}. */
  public static Deadline after(Duration budget, LongSupplier ticker) {
    return startingAt(ticker.getAsLong(), budget, ticker);
  }

  /**
   * {@code budget} from {@code startNanos}, an earlier reading of {@code ticker} (when a request
   * arrived).
   */
  public static Deadline startingAt(long startNanos, Duration budget, LongSupplier ticker) {
    return new Deadline(startNanos + budget.toNanos(), budget, ticker);
  }

  /** The whole time the request was given, for messages. */
  public Duration budget() {
    return budget;
  }

  /** Nanoseconds left; zero or negative once the deadline has passed. */
  public long remainingNanos() {
    return atNanos - ticker.getAsLong();
  }

  /** Whole milliseconds left, rounded down; zero or negative once the deadline has passed. */
  public long remainingMillis() {
    return TimeUnit.NANOSECONDS.toMillis(remainingNanos());
  }

  public boolean passed() {
    return remainingNanos() <= 0;
  }

  /**
   * Runs {@code work} with this deadline as the {@linkplain #current() current} one on this thread,
   * and restores the previous one after. Nested inside an earlier deadline, the earlier one stays:
   * a stage never gets more time than the request it serves.
   */
  public <T> T run(Supplier<T> work) {
    Deadline outer = CURRENT.get();
    CURRENT.set(outer != null && outer.atNanos - atNanos < 0 ? outer : this);
    try {
      return work.get();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  /** The deadline of the work running on this thread, if it has one. */
  public static Optional<Deadline> current() {
    return Optional.ofNullable(CURRENT.get());
  }

  /**
   * Takes {@code lock}, waiting no longer than the current deadline leaves (as long as it takes
   * without one): a write must not outwait its deadline behind a catch-up or another write that
   * holds the lock while the store does not answer.
   *
   * @param what names the lock in the exception's message
   * @throws StoreUnavailableException if the deadline passes (or the thread is interrupted) first
   */
  public static void lock(Lock lock, String what) {
    Deadline deadline = CURRENT.get();
    if (deadline == null) {
      lock.lock();
      return;
    }
    try {
      if (!lock.tryLock(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS)) {
        throw new StoreUnavailableException(
            what
                + " was still busy at the request's deadline (db.timeout "
                + deadline.budget().toMillis()
                + " ms)",
            null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while waiting for " + what, e);
    }
  }

  @Override
  public String toString() {
    return "Deadline[" + remainingMillis() + " ms left of " + budget.toMillis() + " ms]";
  }
}
