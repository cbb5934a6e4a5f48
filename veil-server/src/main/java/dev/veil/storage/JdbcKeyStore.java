package dev.veil.storage;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * {@link KeyStore} on table {@code encryption_key}; ids come from the table's id generator. The
 * unique index on {@code (site_id, predecessor_id)} (migration V3) is what keeps a rotation from
 * happening twice: the second insert of a successor does nothing and the first one is read back.
 */
final class JdbcKeyStore implements KeyStore {
  private static final String COLUMNS = "id, site_id, created_ms, activates_ms, expires_ms, secret";
  static final ChangeTable<EncryptionKey> TABLE =
      new ChangeTable<>("encryption_key", COLUMNS, JdbcKeyStore::key, 1_000);

  private static final String INSERT =
      "INSERT INTO encryption_key"
          + " (site_id, predecessor_id, created_ms, activates_ms, expires_ms, secret, seq)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (site_id, predecessor_id) DO NOTHING RETURNING id";
  private static final String SELECT_SUCCESSOR =
      "SELECT " + COLUMNS + ", seq FROM encryption_key WHERE site_id = ? AND predecessor_id = ?";

  private final Database db;

  JdbcKeyStore(Database db) {
    this.db = db;
  }

  @Override
  public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<EncryptionKey>> sink) {
    return db.readChanges("read keys", TABLE, since, sink);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Times are stored to the millisecond; the returned key carries the stored values. On
   * PostgreSQL a concurrent insert of the same successor makes this one wait for it to commit, and
   * the read that follows sees it.
   *
   * @throws IllegalArgumentException if {@code secret} is not 32 bytes (nothing is written)
   */
  @Override
  public Inserted insert(
      int siteId,
      int predecessorId,
      Instant created,
      Instant activates,
      Instant expires,
      byte[] secret) {
    if (secret.length != 32) {
      throw new IllegalArgumentException("key secret must be 32 bytes");
    }
    long createdMs = created.toEpochMilli();
    long activatesMs = activates.toEpochMilli();
    long expiresMs = expires.toEpochMilli();
    byte[] stored = secret.clone();
    return db.write(
        "insert key",
        c -> {
          long seq = db.nextSeq(c);
          try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setInt(1, siteId);
            ps.setInt(2, predecessorId);
            ps.setLong(3, createdMs);
            ps.setLong(4, activatesMs);
            ps.setLong(5, expiresMs);
            ps.setBytes(6, stored);
            ps.setLong(7, seq);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                EncryptionKey key =
                    new EncryptionKey(
                        rs.getInt(1),
                        siteId,
                        Instant.ofEpochMilli(createdMs),
                        Instant.ofEpochMilli(activatesMs),
                        Instant.ofEpochMilli(expiresMs),
                        stored);
                return new Inserted(new Versioned<>(seq, key), true);
              }
            }
          }
          return new Inserted(successor(c, siteId, predecessorId), false);
        });
  }

  private static Versioned<EncryptionKey> successor(Connection c, int siteId, int predecessorId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SELECT_SUCCESSOR)) {
      ps.setInt(1, siteId);
      ps.setInt(2, predecessorId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("the key holding a conflicting successor slot vanished");
        }
        return new Versioned<>(rs.getLong(7), key(rs));
      }
    }
  }

  private static EncryptionKey key(ResultSet rs) throws SQLException {
    return new EncryptionKey(
        rs.getInt(1),
        rs.getInt(2),
        Instant.ofEpochMilli(rs.getLong(3)),
        Instant.ofEpochMilli(rs.getLong(4)),
        Instant.ofEpochMilli(rs.getLong(5)),
        rs.getBytes(6));
  }
}
