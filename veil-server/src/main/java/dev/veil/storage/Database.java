package dev.veil.storage;

import dev.veil.common.ChangeCursor;
import dev.veil.common.JobLock;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.Versioned;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * What differs between the two engines: how connections are handed out, how a write transaction is
 * opened and committed, where change sequence numbers come from and how a reader finds the changes
 * it has not seen (see the package documentation). Everything above this (the SQL of the feature
 * stores, the migrations runner) is shared.
 *
 * <p>{@link #write} and {@link #read} translate every {@link SQLException} into a {@link
 * StoreUnavailableException} whose message names the operation and the store, never a value.
 * Runtime exceptions thrown by the work itself (for example by a caller's sink) pass through
 * unchanged after the transaction is rolled back.
 */
interface Database extends AutoCloseable {

  /**
   * The folder of this engine's migrations under {@code db/}: {@code sqlite} or {@code postgresql}.
   */
  String engine();

  /** Kind and location, safe to log (no password). */
  String describe();

  /**
   * Runs {@code work} in one transaction, committed before this returns (durable on return). If an
   * admin change is being recorded on this thread, the transaction also appends its audit event
   * ({@link dev.veil.audit.AuditLog#appendPendingIn}), so the change and its record commit
   * together.
   */
  <T> T write(String operation, SqlWork<T> work);

  /**
   * Runs {@code work} on a connection that can stream large results (a server-side cursor on
   * PostgreSQL), without writing.
   */
  <T> T read(String operation, SqlWork<T> work);

  /**
   * Streams the rows of {@code table} changed since {@code since} (every row from {@link
   * ChangeCursor#START}) in seq order and returns the cursor for the next read: the contract of
   * {@link dev.veil.common.ChangeFeed}, at least once and never skipping a committed row.
   */
  <T> ChangeCursor readChanges(
      String operation, ChangeTable<T> table, ChangeCursor since, Consumer<Versioned<T>> sink);

  /**
   * Allocates {@code count} change sequence numbers, ascending, inside the current write
   * transaction of {@code connection}.
   */
  long[] nextSeqs(Connection connection, int count) throws SQLException;

  default long nextSeq(Connection connection) throws SQLException {
    return nextSeqs(connection, 1)[0];
  }

  /**
   * Serializes schema migrations between processes for the rest of the current write transaction.
   */
  void lockForMigration(Connection connection) throws SQLException;

  /**
   * Keeps every other writer of {@code table}, on any node, waiting until the current write
   * transaction of {@code connection} ends, and lets the statements after it see every write
   * committed before: a value the transaction chooses from what it reads stays free until it
   * commits. Readers are not blocked. {@code table} is a name from the code, never input.
   */
  void lockAgainstWriters(Connection connection, String table) throws SQLException;

  JobLock jobLock();

  boolean isReachable();

  @Override
  void close();

  /** The exception for a failed operation: names the operation, the store and the SQL state. */
  default StoreUnavailableException unavailable(String operation, SQLException e) {
    String state = e.getSQLState() == null ? "" : " (SQL state " + e.getSQLState() + ")";
    return new StoreUnavailableException(operation + " failed on " + describe() + state, e);
  }
}
