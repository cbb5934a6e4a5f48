package dev.veil.storage;

import dev.veil.common.Deadline;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Ends a PostgreSQL connection's work at its request's {@link Deadline}. A frozen server (SIGSTOP,
 * a hung host) never answers, so neither its {@code statement_timeout} nor a cancel request (which
 * needs a new connection to the same silent server) ends a statement it holds; closing the socket
 * does. At the deadline the watchdog aborts the connection ({@link Connection#abort}): the blocked
 * call fails at once with a connection error, the pool discards the connection, and the caller's
 * thread and pool slot are free again.
 *
 * <p>One daemon timer thread per store; a watch costs one timer entry, removed when the work ends.
 * Thread-safe.
 */
final class DeadlineWatchdog implements AutoCloseable {
  private final ScheduledThreadPoolExecutor timer;

  DeadlineWatchdog(String threadName) {
    timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
  }

  /** Aborts {@code connection} when {@code deadline} passes, unless the watch is closed first. */
  Watch watch(Connection connection, Deadline deadline) {
    Watch watch = new Watch(connection);
    watch.arm(
        timer.schedule(watch::fire, Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS));
    return watch;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  /**
   * One connection's watch. {@link #close()} must come before the connection goes back to the pool:
   * it waits for an abort in progress, so an aborted connection is never returned as healthy, and a
   * returned one (perhaps already another caller's) is never aborted.
   */
  static final class Watch implements AutoCloseable {
    private final Connection connection;
    private ScheduledFuture<?> task;
    private boolean ended;
    private boolean fired;

    private Watch(Connection connection) {
      this.connection = connection;
    }

    private synchronized void arm(ScheduledFuture<?> scheduled) {
      task = scheduled;
    }

    private synchronized void fire() {
      if (ended) {
        return;
      }
      ended = true;
      fired = true;
      try {
        connection.abort(Runnable::run); // closes the socket now; the blocked read fails at once
      } catch (SQLException | RuntimeException ignored) {
        // Already closed: the work has failed or is failing on its own.
      }
    }

    /** Whether the deadline passed and the connection was aborted. */
    synchronized boolean fired() {
      return fired;
    }

    @Override
    public synchronized void close() {
      ended = true;
      if (task != null) {
        task.cancel(false);
      }
    }
  }
}
