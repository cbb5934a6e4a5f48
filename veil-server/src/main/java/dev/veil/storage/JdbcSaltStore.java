package dev.veil.storage;

import dev.veil.common.ChangeCursor;
import dev.veil.common.Versioned;
import dev.veil.salt.BucketSalt;
import dev.veil.salt.SaltStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * {@link SaltStore} on table {@code bucket_salt} (one row per rotated bucket, replaced with a new
 * seq on every rotation of that bucket; its refresh time since schema version 6) and {@code
 * salt_rotation_run} (one row per period whose scheduled run happened; its primary key is what
 * makes a period run at most once).
 *
 * <p>Compare-and-set: generation 1 is an insert that does nothing if the bucket has a row already;
 * a later generation is an update guarded by {@code generation = g - 1}. If any statement of the
 * batch changes no row, the transaction is rolled back and nothing is written.
 */
final class JdbcSaltStore implements SaltStore {
  static final ChangeTable<BucketSalt> TABLE =
      new ChangeTable<>(
          "bucket_salt",
          "bucket_index, generation, effective_ms, refresh_ms",
          JdbcSaltStore::readRow,
          1_000);

  private static final String INSERT_FIRST =
      "INSERT INTO bucket_salt (bucket_index, generation, effective_ms, refresh_ms, seq)"
          + " VALUES (?, ?, ?, ?, ?)"
          + " ON CONFLICT (bucket_index) DO NOTHING";
  private static final String UPDATE_NEXT =
      "UPDATE bucket_salt SET generation = ?, effective_ms = ?, refresh_ms = ?, seq = ?"
          + " WHERE bucket_index = ? AND generation = ?";
  private static final String CLAIM_RUN =
      "INSERT INTO salt_rotation_run (period_start_ms, buckets, rotated_ms) VALUES (?, ?, ?)"
          + " ON CONFLICT (period_start_ms) DO NOTHING";
  private static final String LAST_RUN = "SELECT MAX(period_start_ms) FROM salt_rotation_run";

  private final Database db;

  /**
   * A row as a {@link BucketSalt}; a row written before schema version 6 has no refresh time and
   * gets the default one (effective time plus {@link BucketSalt#REFRESH_PERIOD}).
   */
  private static BucketSalt readRow(ResultSet rs) throws SQLException {
    int index = rs.getInt(1);
    int generation = rs.getInt(2);
    Instant effective = Instant.ofEpochMilli(rs.getLong(3));
    long refreshMs = rs.getLong(4);
    return rs.wasNull()
        ? new BucketSalt(index, generation, effective)
        : new BucketSalt(index, generation, effective, Instant.ofEpochMilli(refreshMs));
  }

  JdbcSaltStore(Database db) {
    this.db = db;
  }

  @Override
  public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<BucketSalt>> sink) {
    return db.readChanges("read bucket salts", TABLE, since, sink);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Rows get ascending seqs in list order, in batched statements of one transaction.
   */
  @Override
  public boolean saveRotations(List<BucketSalt> rotations) {
    if (rotations.isEmpty()) {
      return true;
    }
    List<BucketSalt> rows = List.copyOf(rotations);
    return guarded(
        () ->
            db.write(
                "save salt rotations",
                c -> {
                  apply(c, rows);
                  return true;
                }));
  }

  @Override
  public boolean saveScheduledRotation(Instant periodStart, List<BucketSalt> rotations) {
    List<BucketSalt> rows = List.copyOf(rotations);
    long rotatedMs = rows.isEmpty() ? 0 : rows.get(0).effectiveAt().toEpochMilli();
    return guarded(
        () ->
            db.write(
                "save scheduled salt rotation",
                c -> {
                  try (PreparedStatement ps = c.prepareStatement(CLAIM_RUN)) {
                    ps.setLong(1, periodStart.toEpochMilli());
                    ps.setInt(2, rows.size());
                    ps.setLong(3, rotatedMs);
                    if (ps.executeUpdate() != 1) {
                      return false; // this period's run is recorded already: nothing was written
                    }
                  }
                  apply(c, rows);
                  return true;
                }));
  }

  @Override
  public Optional<Instant> lastScheduledRun() {
    return db.read(
        "read last salt rotation run",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(LAST_RUN);
              ResultSet rs = ps.executeQuery()) {
            long ms = rs.next() ? rs.getLong(1) : 0;
            return rs.wasNull() ? Optional.<Instant>empty() : Optional.of(Instant.ofEpochMilli(ms));
          }
        });
  }

  /**
   * Writes each rotation as a compare-and-set; throws {@link StaleGeneration} (rolling the
   * transaction back) if one finds its bucket at another generation than the one before. Two
   * batches: first inserts (generation 1), then updates, each in list order, so a bucket listed
   * twice (consecutive generations) meets its own earlier row.
   */
  private void apply(Connection c, List<BucketSalt> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    long[] seqs = db.nextSeqs(c, rows.size());
    try (PreparedStatement first = c.prepareStatement(INSERT_FIRST);
        PreparedStatement next = c.prepareStatement(UPDATE_NEXT)) {
      boolean anyFirst = false;
      boolean anyNext = false;
      for (int i = 0; i < rows.size(); i++) {
        BucketSalt row = rows.get(i);
        if (row.generation() == 1) {
          first.setInt(1, row.bucketIndex());
          first.setInt(2, 1);
          first.setLong(3, row.effectiveAt().toEpochMilli());
          first.setLong(4, row.refreshFrom().toEpochMilli());
          first.setLong(5, seqs[i]);
          first.addBatch();
          anyFirst = true;
        } else {
          next.setInt(1, row.generation());
          next.setLong(2, row.effectiveAt().toEpochMilli());
          next.setLong(3, row.refreshFrom().toEpochMilli());
          next.setLong(4, seqs[i]);
          next.setInt(5, row.bucketIndex());
          next.setInt(6, row.generation() - 1);
          next.addBatch();
          anyNext = true;
        }
      }
      requireEachChangedOneRow(anyFirst ? first.executeBatch() : new int[0]);
      requireEachChangedOneRow(anyNext ? next.executeBatch() : new int[0]);
    }
  }

  private static void requireEachChangedOneRow(int[] counts) {
    for (int count : counts) {
      if (count != 1) {
        throw new StaleGeneration();
      }
    }
  }

  private static boolean guarded(BooleanSupplier write) {
    try {
      return write.getAsBoolean();
    } catch (StaleGeneration e) {
      return false; // the transaction was rolled back: nothing was written
    }
  }

  /** A bucket was not at the generation a rotation was computed from. Control flow only. */
  private static final class StaleGeneration extends RuntimeException {
    StaleGeneration() {
      super("bucket not at the expected generation", null, false, false);
    }
  }
}
