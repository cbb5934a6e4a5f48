package dev.veil.storage;

import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** {@link KeyStore} on table {@code encryption_key}; ids come from the table's id generator. */
final class JdbcKeyStore implements KeyStore {
  private static final String SELECT_AFTER =
      "SELECT id, site_id, created_ms, activates_ms, expires_ms,"
          + " secret, seq FROM encryption_key WHERE seq > ? ORDER BY seq";
  private static final String INSERT =
      "INSERT INTO encryption_key (site_id, created_ms, activates_ms, expires_ms, secret, seq)"
          + " VALUES (?, ?, ?, ?, ?, ?) RETURNING id";

  private final Database db;

  JdbcKeyStore(Database db) {
    this.db = db;
  }

  @Override
  public List<Versioned<EncryptionKey>> keysAfter(long afterSeq) {
    return db.read(
        "read keys",
        c -> {
          List<Versioned<EncryptionKey>> keys = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(SELECT_AFTER)) {
            ps.setLong(1, afterSeq);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                EncryptionKey key =
                    new EncryptionKey(
                        rs.getInt(1),
                        rs.getInt(2),
                        Instant.ofEpochMilli(rs.getLong(3)),
                        Instant.ofEpochMilli(rs.getLong(4)),
                        Instant.ofEpochMilli(rs.getLong(5)),
                        rs.getBytes(6));
                keys.add(new Versioned<>(rs.getLong(7), key));
              }
            }
          }
          return keys;
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Times are stored to the millisecond; the returned key carries the stored values.
   *
   * @throws IllegalArgumentException if {@code secret} is not 32 bytes (nothing is written)
   */
  @Override
  public Versioned<EncryptionKey> insert(
      int siteId, Instant created, Instant activates, Instant expires, byte[] secret) {
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
            ps.setLong(2, createdMs);
            ps.setLong(3, activatesMs);
            ps.setLong(4, expiresMs);
            ps.setBytes(5, stored);
            ps.setLong(6, seq);
            int id = returnedId(ps);
            return new Versioned<>(
                seq,
                new EncryptionKey(
                    id,
                    siteId,
                    Instant.ofEpochMilli(createdMs),
                    Instant.ofEpochMilli(activatesMs),
                    Instant.ofEpochMilli(expiresMs),
                    stored));
          }
        });
  }

  private static int returnedId(PreparedStatement insert) throws SQLException {
    try (ResultSet rs = insert.executeQuery()) {
      if (!rs.next()) {
        throw new SQLException("insert returned no id");
      }
      return rs.getInt(1);
    }
  }
}
