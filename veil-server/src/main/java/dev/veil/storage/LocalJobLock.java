package dev.veil.storage;

import dev.veil.common.JobLock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The embedded store's job lock: at most one running job per name within this process (the embedded
 * store has one process by construction). Never waits; not re-entrant, so a job that starts a job
 * of its own name is refused too. A job returning {@code null} yields empty.
 */
final class LocalJobLock implements JobLock {
  private final Set<String> running = ConcurrentHashMap.newKeySet();

  @Override
  public <T> Optional<T> runExclusive(String jobName, Supplier<T> job) {
    if (!running.add(jobName)) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(job.get());
    } finally {
      running.remove(jobName);
    }
  }
}
