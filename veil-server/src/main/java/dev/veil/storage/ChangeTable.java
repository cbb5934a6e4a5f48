package dev.veil.storage;

import dev.veil.common.Versioned;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * One versioned table read as a change feed: its name, the columns that make up a row's value and
 * how to read them. {@link #stream} is the one loop that hands rows to a sink, shared by the four
 * versioned tables and both engines ({@link Database#readChanges} decides which rows).
 *
 * @param name the table
 * @param columns the value's columns, comma-separated, read by {@code reader} as columns 1 to n;
 *     the selected {@code seq} follows them
 * @param reader builds the value from the current row
 * @param fetchSize rows per round trip (PostgreSQL streams through a server-side cursor)
 */
record ChangeTable<T>(String name, String columns, RowReader<T> reader, int fetchSize) {

  /** Reads a value from the current row of a result set. */
  @FunctionalInterface
  interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /** {@code SELECT <columns>, seq FROM <name> <where> ORDER BY seq}; {@code where} may be empty. */
  String select(String where) {
    return "SELECT "
        + columns
        + ", seq FROM "
        + name
        + (where.isEmpty() ? "" : " " + where)
        + " ORDER BY seq";
  }

  /**
   * Executes {@code query} (its parameters bound, built by {@link #select}) and passes every row to
   * {@code sink}, without holding them together. Returns the highest seq passed, or {@code none}
   * when there was no row.
   */
  long stream(PreparedStatement query, Consumer<Versioned<T>> sink, long none) throws SQLException {
    query.setFetchSize(fetchSize);
    long last = none;
    try (ResultSet rs = query.executeQuery()) {
      int seqColumn = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        long seq = rs.getLong(seqColumn);
        sink.accept(new Versioned<>(seq, reader.read(rs)));
        last = Math.max(last, seq);
      }
    }
    return last;
  }
}
