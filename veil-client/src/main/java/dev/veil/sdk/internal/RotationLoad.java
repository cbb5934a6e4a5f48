package dev.veil.sdk.internal;

import dev.veil.sdk.RotatedBucket;
import java.sql.PreparedStatement;
import java.sql.Statement;

/**
 * One poll's rotated buckets, collected into a table of the writer connection ({@code TEMP}: not
 * in the file) and then applied in one transaction: every mapping of a listed bucket made at or
 * before its rotation time becomes stale, and the new poll times are stored with it. A poll that
 * breaks off and is retried calls {@link #restart()} and delivers its buckets again.
 */
public final class RotationLoad {
  private static final int FLUSH_EVERY = 10_000;

  private final CacheFile file;
  private PreparedStatement insert;
  private int pending;

  RotationLoad(CacheFile file) {
    this.file = file;
  }

  /** Forgets buckets received so far (a retried poll starts again from its first bucket). */
  public void restart() {
    file.write(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TEMP TABLE IF NOT EXISTS rotated(bucket_id TEXT PRIMARY KEY, last_updated INTEGER"
            + " NOT NULL) WITHOUT ROWID");
        s.execute("DELETE FROM rotated");
      }
      if (insert == null) {
        insert = c.prepareStatement("INSERT OR REPLACE INTO rotated(bucket_id, last_updated) VALUES(?, ?)");
      }
      insert.clearBatch();
      pending = 0;
    });
  }

  public void add(RotatedBucket bucket) {
    file.write(c -> {
      insert.setString(1, bucket.bucketId());
      insert.setLong(2, bucket.lastUpdated().toEpochMilli());
      insert.addBatch();
      pending++;
    });
    if (pending >= FLUSH_EVERY) {
      file.transaction(c -> flush());
    }
  }

  private void flush() throws java.sql.SQLException {
    insert.executeBatch();
    pending = 0;
  }

  /**
   * Marks stale the mappings made at or before their bucket's rotation and stores the meta values
   * ({@code key, value, key, value...}), all in one transaction; returns how many were marked.
   */
  public long commit(String... metaUpdates) {
    long[] marked = {0};
    file.transaction(c -> {
      flush();
      try (Statement s = c.createStatement()) {
        marked[0] = s.executeUpdate("UPDATE mapping SET stale = 1 WHERE stale = 0"
            + " AND bucket_id IN (SELECT bucket_id FROM rotated)"
            + " AND mapped_at <= (SELECT r.last_updated FROM rotated r WHERE r.bucket_id = mapping.bucket_id)");
        s.execute("DELETE FROM rotated");
      }
      for (int i = 0; i + 1 < metaUpdates.length; i += 2) {
        MappingStore.putMeta(c, metaUpdates[i], metaUpdates[i + 1]);
      }
    });
    file.write(c -> {
      insert.close();
      insert = null;
    });
    return marked[0];
  }
}
