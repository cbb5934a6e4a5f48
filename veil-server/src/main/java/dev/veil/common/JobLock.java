package dev.veil.common;

import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs scheduled jobs (key rotation, salt rotation) on one node at a time. On the embedded store
 * this is a process-local lock; on PostgreSQL an advisory lock held for the duration of the job.
 */
public interface JobLock {
  /**
   * Runs {@code job} if no other holder runs a job of the same name, and returns its result;
   * returns empty without running it otherwise.
   */
  <T> Optional<T> runExclusive(String jobName, Supplier<T> job);

  /**
   * Like {@link #runExclusive}, for a job that keeps the lock for long (webhook delivery): {@code
   * job} gets a check that answers whether the lock is still held, calls it between steps and
   * returns once it answers false. On PostgreSQL the check asks the lock's session whether it is
   * still alive (the server drops the lock with a broken session); here, in one process, the lock
   * cannot be lost.
   */
  default <T> Optional<T> runHeld(String jobName, Function<BooleanSupplier, T> job) {
    return runExclusive(jobName, () -> job.apply(() -> true));
  }
}
