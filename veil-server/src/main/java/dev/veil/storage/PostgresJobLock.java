package dev.veil.storage;

import dev.veil.common.JobLock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL job lock: a session-level {@code pg_try_advisory_lock} on a connection of its own
 * (outside the pool, so a job can still use every pooled connection), held while the job runs and
 * released after. The lock key is derived from the schema and the job name, so stores in different
 * schemas of one database do not exclude each other. A job returning {@code null} yields empty.
 *
 * <p>A dead holder: when the node's process dies, its kernel closes the session's socket and the
 * server drops the lock with the session at once; when the node's machine or network vanishes, the
 * session's TCP keepalives (sent by the server, about 25 s) end it. The next node whose job timer
 * fires then takes the lock. A <em>frozen</em> holder (SIGSTOP, a long GC pause) keeps its session
 * and the lock until it resumes; jobs wait meanwhile. The lock only saves work: each job is
 * idempotent against the stored state (one successor per key, one run per salt period, salt
 * generations compare-and-set), so even two holders could not run it twice.
 */
final class PostgresJobLock implements JobLock {
  private static final Logger log = LoggerFactory.getLogger(PostgresJobLock.class);

  private static final int CHECK_TIMEOUT_SECONDS = 2;

  private final PostgresDatabase db;

  PostgresJobLock(PostgresDatabase db) {
    this.db = db;
  }

  @Override
  public <T> Optional<T> runExclusive(String jobName, Supplier<T> job) {
    return runHeld(jobName, held -> job.get());
  }

  /**
   * {@inheritDoc}
   *
   * <p>The check sends an empty query on the lock's session (bounded by {@value
   * #CHECK_TIMEOUT_SECONDS} s): a session that does not answer has lost, or will soon lose, the
   * lock, so the job stops; another node may already have taken over.
   */
  @Override
  public <T> Optional<T> runHeld(String jobName, Function<BooleanSupplier, T> job) {
    long key = db.advisoryKey("job:" + jobName);
    try (Connection c = db.openDedicatedConnection("job lock '" + jobName + "'")) {
      if (!call(c, "SELECT pg_try_advisory_lock(?)", key)) {
        return Optional.empty();
      }
      try {
        return Optional.ofNullable(job.apply(() -> alive(c)));
      } finally {
        unlock(c, key, jobName);
      }
    } catch (SQLException e) {
      throw db.unavailable("job lock '" + jobName + "'", e);
    }
  }

  private static boolean alive(Connection c) {
    try {
      return c.isValid(CHECK_TIMEOUT_SECONDS);
    } catch (SQLException e) {
      return false; // isValid throws only for a negative timeout
    }
  }

  private static void unlock(Connection c, long key, String jobName) {
    try {
      call(c, "SELECT pg_advisory_unlock(?)", key);
    } catch (SQLException e) {
      // Closing the session right after releases the lock anyway.
      log.warn("event=job_unlock_failed job={} sqlState={}", jobName, e.getSQLState());
    }
  }

  private static boolean call(Connection c, String sql, long key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }
}
