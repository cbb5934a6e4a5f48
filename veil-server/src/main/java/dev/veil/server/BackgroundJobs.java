package dev.veil.server;

import dev.veil.common.JobLock;
import dev.veil.common.StoreUnavailableException;
import dev.veil.config.VeilConfig;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's background work on one daemon thread: catching up with changes other nodes wrote
 * (every {@code sync.interval}) and the rotation jobs (every {@code jobs.interval}, each under the
 * store's {@link JobLock} so one node runs it at a time). A store outage is logged once per outage
 * and retried; memory keeps serving meanwhile.
 */
final class BackgroundJobs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundJobs.class);

  private final Services services;
  private final JobLock jobLock;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private volatile Instant lastSync;
  private volatile boolean storeDown;

  BackgroundJobs(Services services, JobLock jobLock, Clock clock) {
    this.services = services;
    this.jobLock = jobLock;
    this.clock = clock;
    this.lastSync = clock.instant();
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "veil-jobs");
      t.setDaemon(true);
      return t;
    });
  }

  void start() {
    VeilConfig config = services.config();
    long sync = Math.max(1, config.syncInterval().toMillis());
    long jobs = Math.max(1, config.jobInterval().toMillis());
    executor.scheduleWithFixedDelay(this::syncOnce, sync, sync, TimeUnit.MILLISECONDS);
    executor.scheduleWithFixedDelay(this::rotateOnce, 0, jobs, TimeUnit.MILLISECONDS);
  }

  /** When this node last caught up with the store successfully. */
  Instant lastSync() {
    return lastSync;
  }

  void syncOnce() {
    guarded("sync", () -> {
      services.keys().catchUp();
      services.salts().catchUp();
      services.clients().catchUp();
      services.optOuts().catchUp();
      lastSync = clock.instant();
    });
  }

  void rotateOnce() {
    guarded("rotation", () -> {
      jobLock.runExclusive("rotate-keys", () -> services.keys().rotateDue()).ifPresent(created -> {
        if (!created.isEmpty()) {
          LOG.info("event=keys_rotated count={}", created.size());
        }
      });
      double fraction = services.config().dailyRotationFraction();
      jobLock.runExclusive("rotate-salts", () -> services.salts().rotateDaily(fraction)).ifPresent(count -> {
        if (count > 0) {
          LOG.info("event=salts_rotated buckets={}", count);
        }
      });
    });
  }

  private void guarded(String job, Runnable work) {
    try {
      work.run();
      if (storeDown) {
        storeDown = false;
        LOG.info("event=store_reachable job={}", job);
      }
    } catch (StoreUnavailableException e) {
      if (!storeDown) {
        storeDown = true;
        LOG.warn("event=store_unreachable job={} detail=\"{}\"", job, e.getMessage());
      }
    } catch (RuntimeException e) {
      LOG.error("event=job_failed job={} error={} detail=\"{}\"", job, e.getClass().getName(), e.getMessage());
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
