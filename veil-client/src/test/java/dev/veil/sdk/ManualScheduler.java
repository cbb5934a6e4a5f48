package dev.veil.sdk;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** Records what is scheduled; the test runs it by hand. */
final class ManualScheduler extends ScheduledThreadPoolExecutor {
  Runnable periodic;
  long periodMillis;
  final List<Runnable> oneShots = new ArrayList<>();
  boolean refuseOneShots;

  ManualScheduler() {
    super(1);
  }

  void runPeriodic() {
    periodic.run();
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    periodic = command;
    periodMillis = unit.toMillis(period);
    return new NoFuture<>();
  }

  @Override
  public void execute(Runnable command) {
    if (refuseOneShots) {
      throw new RejectedExecutionException("shut down");
    }
    oneShots.add(command);
  }

  private static final class NoFuture<V> implements ScheduledFuture<V> {
    @Override
    public long getDelay(TimeUnit unit) {
      return 0;
    }

    @Override
    public int compareTo(Delayed o) {
      return 0;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return true;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public boolean isDone() {
      return false;
    }

    @Override
    public V get() {
      return null;
    }

    @Override
    public V get(long timeout, TimeUnit unit) {
      return null;
    }
  }
}
