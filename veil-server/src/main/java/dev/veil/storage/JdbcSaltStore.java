package dev.veil.storage;

import dev.veil.common.Versioned;
import dev.veil.salt.BucketSalt;
import dev.veil.salt.SaltStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@link SaltStore} on table {@code bucket_salt}: one row per rotated bucket, replaced (with a new
 * seq) on every rotation of that bucket.
 */
final class JdbcSaltStore implements SaltStore {
  static final int FETCH_SIZE = 1_000;

  private static final String SELECT_AFTER =
      "SELECT bucket_index, generation, effective_ms, seq"
          + " FROM bucket_salt WHERE seq > ? ORDER BY seq";
  private static final String UPSERT =
      "INSERT INTO bucket_salt"
          + " (bucket_index, generation, effective_ms, seq) VALUES (?, ?, ?, ?)"
          + " ON CONFLICT (bucket_index) DO UPDATE SET generation = excluded.generation,"
          + " effective_ms = excluded.effective_ms, seq = excluded.seq";

  private final Database db;

  JdbcSaltStore(Database db) {
    this.db = db;
  }

  @Override
  public long forEachAfter(long afterSeq, Consumer<Versioned<BucketSalt>> sink) {
    return db.read(
        "read bucket salts",
        c -> {
          long last = afterSeq;
          try (PreparedStatement ps = c.prepareStatement(SELECT_AFTER)) {
            ps.setFetchSize(FETCH_SIZE);
            ps.setLong(1, afterSeq);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                last = rs.getLong(4);
                sink.accept(
                    new Versioned<>(
                        last,
                        new BucketSalt(
                            rs.getInt(1), rs.getInt(2), Instant.ofEpochMilli(rs.getLong(3)))));
              }
            }
          }
          return last;
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>One batched statement in one transaction; rows get ascending seqs in list order, so a bucket
   * listed twice ends with its last entry.
   */
  @Override
  public void saveRotations(List<BucketSalt> rotations) {
    if (rotations.isEmpty()) {
      return;
    }
    List<BucketSalt> rows = List.copyOf(rotations);
    db.write(
        "save salt rotations",
        c -> {
          long[] seqs = db.nextSeqs(c, rows.size());
          try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
            for (int i = 0; i < rows.size(); i++) {
              BucketSalt row = rows.get(i);
              ps.setInt(1, row.bucketIndex());
              ps.setInt(2, row.generation());
              ps.setLong(3, row.effectiveAt().toEpochMilli());
              ps.setLong(4, seqs[i]);
              ps.addBatch();
            }
            ps.executeBatch();
          }
          return null;
        });
  }
}
