package dev.veil.storage;

import java.sql.Connection;
import java.sql.SQLException;

/** A unit of work on a borrowed connection; the {@link Database} owns the transaction around it. */
@FunctionalInterface
interface SqlWork<T> {
  T apply(Connection connection) throws SQLException;
}
