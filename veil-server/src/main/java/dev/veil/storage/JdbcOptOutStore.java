package dev.veil.storage;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import dev.veil.optout.OptOut;
import dev.veil.optout.OptOutStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@link OptOutStore} on table {@code opt_out}: one row per first-level hash, written once and
 * never changed, so its seq is the time it was first recorded in the change order.
 */
final class JdbcOptOutStore implements OptOutStore {
  static final ChangeTable<OptOut> TABLE =
      new ChangeTable<>(
          "opt_out",
          "first_level_hash, opted_out_ms",
          rs -> new OptOut(rs.getBytes(1), Instant.ofEpochMilli(rs.getLong(2))),
          10_000);

  private static final String SELECT_ONE =
      "SELECT opted_out_ms, seq FROM opt_out WHERE first_level_hash = ?";
  private static final String SELECT_FROM =
      "SELECT first_level_hash, opted_out_ms FROM opt_out WHERE first_level_hash >= ?";
  private static final String SELECT_RANGE = SELECT_FROM + " AND first_level_hash < ?";
  private static final String INSERT =
      "INSERT INTO opt_out (first_level_hash, opted_out_ms, seq)"
          + " VALUES (?, ?, ?) ON CONFLICT (first_level_hash) DO NOTHING";

  private final Database db;

  JdbcOptOutStore(Database db) {
    this.db = db;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The time is stored to the millisecond. Safe against a concurrent record of the same hash on
   * another node: the insert does nothing on conflict and the stored row is read back.
   */
  @Override
  public Versioned<OptOut> record(byte[] firstLevelHash, Instant optedOutAt) {
    byte[] hash = firstLevelHash.clone();
    long millis = optedOutAt.toEpochMilli();
    return db.write(
        "record opt-out",
        c -> {
          Optional<Versioned<OptOut>> existing = select(c, hash);
          if (existing.isPresent()) {
            return existing.get();
          }
          long seq = db.nextSeq(c);
          try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            bindInsert(ps, hash, millis, seq);
            if (ps.executeUpdate() == 1) {
              return new Versioned<>(seq, new OptOut(hash, Instant.ofEpochMilli(millis)));
            }
          }
          return select(c, hash).orElseThrow(() -> new SQLException("opt-out row vanished"));
        });
  }

  /**
   * Records many opt-outs in one transaction with a batched insert, keeping existing records (bulk
   * import path; also how tests load large volumes quickly). Returns how many were new.
   */
  int recordAll(List<OptOut> optOuts) {
    if (optOuts.isEmpty()) {
      return 0;
    }
    List<OptOut> rows = List.copyOf(optOuts);
    return db.write(
        "record opt-outs",
        c -> {
          long[] seqs = db.nextSeqs(c, rows.size());
          try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            for (int i = 0; i < rows.size(); i++) {
              OptOut o = rows.get(i);
              bindInsert(ps, o.firstLevelHash(), o.optedOutAt().toEpochMilli(), seqs[i]);
              ps.addBatch();
            }
            int inserted = 0;
            for (int count : ps.executeBatch()) {
              inserted += Math.max(count, 0);
            }
            return inserted;
          }
        });
  }

  @Override
  public Optional<OptOut> find(byte[] firstLevelHash) {
    byte[] hash = firstLevelHash.clone();
    return db.read("find opt-out", c -> select(c, hash).map(Versioned::value));
  }

  /**
   * {@inheritDoc}
   *
   * <p>A range scan of the primary key: hashes compare as unsigned bytes on both databases, so the
   * records with the prefix lie between the prefix and the prefix plus one.
   */
  @Override
  public List<OptOut> findByPrefix(byte[] prefix) {
    byte[] from = prefix.clone();
    byte[] to = successor(prefix);
    return db.read(
        "find opt-outs by prefix",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(to == null ? SELECT_FROM : SELECT_RANGE)) {
            ps.setBytes(1, from);
            if (to != null) {
              ps.setBytes(2, to);
            }
            List<OptOut> found = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                found.add(new OptOut(rs.getBytes(1), Instant.ofEpochMilli(rs.getLong(2))));
              }
            }
            return found;
          }
        });
  }

  /** The smallest byte string after every string that begins with {@code prefix}, or null. */
  private static byte[] successor(byte[] prefix) {
    byte[] next = prefix.clone();
    for (int i = next.length - 1; i >= 0; i--) {
      if (next[i] != (byte) 0xff) {
        next[i]++;
        return Arrays.copyOf(next, i + 1);
      }
    }
    return null;
  }

  @Override
  public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<OptOut>> sink) {
    return db.readChanges("read opt-outs", TABLE, since, sink);
  }

  private static Optional<Versioned<OptOut>> select(Connection c, byte[] hash) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SELECT_ONE)) {
      ps.setBytes(1, hash);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Versioned<>(
                rs.getLong(2), new OptOut(hash.clone(), Instant.ofEpochMilli(rs.getLong(1)))));
      }
    }
  }

  private static void bindInsert(PreparedStatement ps, byte[] hash, long millis, long seq)
      throws SQLException {
    ps.setBytes(1, hash);
    ps.setLong(2, millis);
    ps.setLong(3, seq);
  }
}
