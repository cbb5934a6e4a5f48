package dev.veil.storage;

import dev.veil.common.MetaStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link MetaStore} on table {@code meta}. Values may be secrets (salts, seeds): they are never
 * logged and never part of an exception message. Both conditional writes are single statements, so
 * they are atomic against other nodes without explicit locking.
 */
final class JdbcMetaStore implements MetaStore {
  private static final String SELECT = "SELECT value FROM meta WHERE name = ?";
  private static final String INSERT_IF_ABSENT =
      "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING";
  private static final String UPDATE_IF_EQUAL =
      "UPDATE meta SET value = ? WHERE name = ? AND value = ?";

  private final Database db;

  JdbcMetaStore(Database db) {
    this.db = db;
  }

  @Override
  public Optional<byte[]> get(String name) {
    Objects.requireNonNull(name, "name");
    return db.read("read meta value", c -> select(c, name));
  }

  @Override
  public byte[] putIfAbsent(String name, byte[] value) {
    Objects.requireNonNull(name, "name");
    byte[] copy = value.clone();
    return db.write(
        "put meta value",
        c -> {
          insertIfAbsent(c, name, copy);
          // Read COMMITTED: a concurrent winner's insert made ours wait, then do nothing; this
          // statement sees the winner's committed value.
          return select(c, name).orElseThrow(() -> new SQLException("meta row vanished"));
        });
  }

  /** {@inheritDoc} {@code update} must not be null. */
  @Override
  public boolean compareAndSet(String name, byte[] expected, byte[] update) {
    Objects.requireNonNull(name, "name");
    byte[] next = update.clone();
    byte[] prev = expected == null ? null : expected.clone();
    return db.write(
        "compare-and-set meta value",
        c -> {
          if (prev == null) {
            return insertIfAbsent(c, name, next);
          }
          try (PreparedStatement ps = c.prepareStatement(UPDATE_IF_EQUAL)) {
            ps.setBytes(1, next);
            ps.setString(2, name);
            ps.setBytes(3, prev);
            return ps.executeUpdate() == 1;
          }
        });
  }

  private static boolean insertIfAbsent(Connection c, String name, byte[] value)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_IF_ABSENT)) {
      ps.setString(1, name);
      ps.setBytes(2, value);
      return ps.executeUpdate() == 1;
    }
  }

  private static Optional<byte[]> select(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SELECT)) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getBytes(1)) : Optional.empty();
      }
    }
  }
}
