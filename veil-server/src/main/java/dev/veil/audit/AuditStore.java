package dev.veil.audit;

import java.sql.Connection;
import java.util.List;

/**
 * The audit trail's storage: append and list, nothing else. Thread-safe.
 *
 * @see AuditLog
 */
public interface AuditStore {
  /** Appends {@code event} in a transaction of its own; the stored event (with its id). */
  AuditEvent append(AuditEvent event);

  /** Up to {@code limit} records matching {@code filter}, newest (highest id) first. */
  List<AuditEvent> list(AuditFilter filter, int limit);

  /**
   * Appends {@code event} on {@code connection}, inside its caller's open write transaction: the
   * change and its record commit or roll back together. {@link AuditLog} calls it only for a change
   * made in such a transaction; a store without SQL transactions (a test's in-memory store) is
   * never asked, and {@link AuditLog} appends after its changes instead.
   *
   * @throws java.sql.SQLException as the connection does
   */
  void appendIn(Connection connection, AuditEvent event) throws java.sql.SQLException;
}
