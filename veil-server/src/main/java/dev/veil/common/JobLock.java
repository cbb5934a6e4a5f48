package dev.veil.common;

import java.util.Optional;
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
}
