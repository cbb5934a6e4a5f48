package dev.veil.server;

import dev.veil.common.JobLock;
import dev.veil.common.StoreUnavailableException;
import dev.veil.config.VeilConfig;
import dev.veil.deduction.DeductionService;
import dev.veil.observability.Readiness;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's background work, on two daemon threads so that neither delays the other:
 *
 * <ul>
 *   <li>{@code veil-sync}: every {@code sync.interval}, catches up with the changes other nodes
 *       wrote (salts, opt-outs, clients, then keys: a new client's site key is written after the
 *       client, so reading keys last never leaves a known client without its key for long) and
 *       records the sync in {@link Readiness};
 *   <li>{@code veil-jobs}: every {@code jobs.interval}, the rotation jobs, each under the store's
 *       {@link JobLock} so one node at a time does the work (the jobs are idempotent anyway).
 * </ul>
 *
 * A store outage is logged once per outage and thread, and retried at the next tick; memory keeps
 * serving meanwhile, and readiness turns off once the data is older than {@code
 * sync.max-staleness}.
 */
final class BackgroundJobs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundJobs.class);

  private final Services services;
  private final DeductionService deductions;
  private final JobLock jobLock;
  private final Clock clock;
  private final ScheduledExecutorService sync = daemon("veil-sync");
  private final ScheduledExecutorService jobs = daemon("veil-jobs");
  private final AtomicBoolean syncFailing = new AtomicBoolean();
  private final AtomicBoolean jobsFailing = new AtomicBoolean();
  private volatile boolean closed;

  BackgroundJobs(Services services, DeductionService deductions, JobLock jobLock, Clock clock) {
    this.services = services;
    this.deductions = deductions;
    this.jobLock = jobLock;
    this.clock = clock;
  }

  private static ScheduledExecutorService daemon(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  @SuppressWarnings(
      "FutureReturnValueIgnored") // each task catches its own failures; close() cancels them
  void start() {
    VeilConfig config = services.config();
    long syncMs = Math.max(1, config.syncInterval().toMillis());
    long jobsMs = Math.max(1, config.jobInterval().toMillis());
    sync.scheduleWithFixedDelay(this::syncOnce, syncMs, syncMs, TimeUnit.MILLISECONDS);
    jobs.scheduleWithFixedDelay(this::rotateOnce, 0, jobsMs, TimeUnit.MILLISECONDS);
    long expiryMs = Math.max(1, config.deductions().expiryInterval().toMillis());
    jobs.scheduleWithFixedDelay(this::expireOnce, expiryMs, expiryMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Closes the deductions whose validity window ended, on one node at a time (another node takes
   * over when this one is gone; the change itself is safe on several at once).
   */
  void expireOnce() {
    guarded(
        "deduction-expiry",
        jobsFailing,
        () ->
            jobLock
                .runExclusive("expire-deductions", deductions::expireDue)
                .ifPresent(
                    count -> {
                      if (count > 0) {
                        LOG.info("event=deductions_expired count={}", count);
                      }
                    }));
  }

  void syncOnce() {
    Instant started = clock.instant();
    guarded(
        "sync",
        syncFailing,
        () -> {
          services.salts().catchUp();
          services.optOuts().catchUp();
          services.optOuts().refreshStatus(services.salts().current());
          services.clients().catchUp();
          services.sites().catchUp();
          services.keys().catchUp();
          services.readiness().recordSync(started);
        });
  }

  void rotateOnce() {
    guarded(
        "rotation",
        jobsFailing,
        () -> {
          jobLock
              .runExclusive("rotate-keys", () -> services.keys().rotateDue())
              .ifPresent(
                  created -> {
                    if (!created.isEmpty()) {
                      LOG.info("event=keys_rotated count={}", created.size());
                    }
                  });
          jobLock
              .runExclusive("rotate-salts", () -> services.salts().rotateScheduled())
              .ifPresent(
                  count -> {
                    if (count > 0) {
                      LOG.info("event=salts_rotated buckets={}", count);
                    }
                  });
        });
  }

  private void guarded(String job, AtomicBoolean failing, Runnable work) {
    try {
      work.run();
      if (failing.compareAndSet(true, false)) {
        LOG.info("event=store_reachable job={}", job);
      }
    } catch (StoreUnavailableException e) {
      // close() interrupts a catch-up or job in its store call: that is the stop, not an outage.
      if (!closed && failing.compareAndSet(false, true)) {
        LOG.warn("event=store_unreachable job={} detail=\"{}\"", job, e.getMessage());
      }
    } catch (RuntimeException e) {
      LOG.error(
          "event=job_failed job={} error={} detail=\"{}\"",
          job,
          e.getClass().getName(),
          e.getMessage());
    }
  }

  @Override
  public void close() {
    closed = true;
    sync.shutdownNow();
    jobs.shutdownNow();
  }
}
