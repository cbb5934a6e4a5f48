package dev.veil.sdk.internal;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.AddResult;
import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.Rejection;
import dev.veil.sdk.RotatedBucket;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The SQLite file behind a {@link dev.veil.sdk.MappingCache}. WAL journal with {@code
 * synchronous=FULL}: a commit is on disk when it returns, so a SIGKILL loses at most the batch in
 * flight, which is mapped again on restart. Entries are unique by (kind, identifier), so nothing
 * is ever held twice.
 *
 * <pre>
 * entry(id, kind, identifier)         unique (kind, identifier); id = insertion order (never reused),
 *                                     the cursor of a mapping run; never updated
 * mapping(id, advertising_id, bucket_id, mapped_at, stale)
 *                                     one row per mapped entry (same id); stale = 1 when its bucket
 *                                     rotated after mapped_at
 * rejected(kind, identifier, reason, at)   not held, and why
 * meta(key, value)                    schema version, poll watermark, input checkpoints
 * </pre>
 *
 * <p>An entry waits to be mapped when it has no mapping row or a stale one. The layout keeps
 * writes small and sequential, which is what bounds a run's speed: added entries append to {@code
 * entry} (only the uniqueness index takes random writes), first mappings append to {@code
 * mapping} in id order, and re-mappings rewrite rows of the same size in place. There is no index
 * on {@code bucket_id}: a poll's marking scans {@code mapping} once (a fraction of a second per
 * million entries, once a day) instead of every mapping paying for a random index write.
 *
 * <p>Thread-safe. One writer connection, whose every use (a whole transaction) holds the write
 * lock, and one reader connection for lookups and iteration, which sees committed data only and
 * has its own lock, so reads never wait for writes.
 */
public final class MappingStore implements AutoCloseable {
  private static final String SCHEMA_VERSION = "1";
  private static final int MAX_BATCH = 10_000;
  /** Page cache of the writer: the uniqueness index of a million entries is about 40 MiB. */
  private static final int WRITER_CACHE_KIB = 64 * 1024;
  private static final int READER_CACHE_KIB = 16 * 1024;

  private final Connection writer;
  private final Connection reader;
  private final Object readLock = new Object();
  private final Object writeLock = new Object();

  private MappingStore(Connection writer, Connection reader) {
    this.writer = writer;
    this.reader = reader;
  }

  /** One entry waiting to be mapped. */
  public record Todo(long id, Identifier identifier, boolean mappedBefore) {}

  /** What applying one batch's answer did; {@code removed} lists the entries taken out. */
  public record Applied(int mapped, int remapped, int optedOut, int invalid, List<Rejection> removed) {}

  /**
   * Opens the file, creating it (mode 0600: it holds personal data) and its tables if needed.
   *
   * @throws UncheckedIOException if the file cannot be opened or was written by another version
   */
  public static MappingStore open(Path file) {
    createPrivately(file);
    try {
      Connection writer = connect(file, WRITER_CACHE_KIB);
      try (Statement s = writer.createStatement()) {
        // 16 KiB pages (for a new file; an existing one keeps its size): a bulk add of a million
        // entries touches fewer uniqueness-index pages, about a quarter faster than with 4 KiB.
        s.execute("PRAGMA page_size=16384");
        s.execute("PRAGMA journal_mode=WAL");
        // Checkpoint every 32 MiB of WAL rather than 4 MiB: fewer syncs of the main file in bulk runs.
        s.execute("PRAGMA wal_autocheckpoint=2048");
        writer.setAutoCommit(false);
        for (String ddl : SCHEMA) {
          s.execute(ddl);
        }
        s.execute("INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '" + SCHEMA_VERSION + "')");
        writer.commit();
        writer.setAutoCommit(true);
      }
      MappingStore store = new MappingStore(writer, connect(file, READER_CACHE_KIB));
      String version = store.meta("schema").orElse("");
      if (!version.equals(SCHEMA_VERSION)) {
        store.close();
        throw new IOException("mapping cache " + file + " has schema " + version + ", this client reads "
            + SCHEMA_VERSION);
      }
      return store;
    } catch (SQLException | IOException e) {
      throw failure("open " + file, e);
    }
  }

  private static final String[] SCHEMA = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS entry(id INTEGER PRIMARY KEY AUTOINCREMENT, kind INTEGER NOT NULL,"
        + " identifier TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS entry_identity ON entry(kind, identifier)",
    "CREATE TABLE IF NOT EXISTS mapping(id INTEGER PRIMARY KEY, advertising_id TEXT NOT NULL,"
        + " bucket_id TEXT NOT NULL, mapped_at INTEGER NOT NULL, stale INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS rejected(kind INTEGER NOT NULL, identifier TEXT NOT NULL, reason TEXT NOT NULL,"
        + " at INTEGER NOT NULL, PRIMARY KEY(kind, identifier)) WITHOUT ROWID",
  };

  private static Connection connect(Path file, int cacheKib) throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA synchronous=FULL");
      s.execute("PRAGMA busy_timeout=10000");
      s.execute("PRAGMA cache_size=-" + cacheKib);
      s.execute("PRAGMA temp_store=MEMORY");
    }
    return c;
  }

  private static void createPrivately(Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException exists) {
      // opened as it is
    } catch (UnsupportedOperationException notPosix) {
      // SQLite creates it with the default mode
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create mapping cache " + file, e);
    }
  }

  // --- meta ---

  public Optional<String> meta(String key) {
    synchronized (readLock) {
      try (PreparedStatement q = reader.prepareStatement("SELECT value FROM meta WHERE key = ?")) {
        q.setString(1, key);
        try (ResultSet r = q.executeQuery()) {
          return r.next() ? Optional.of(r.getString(1)) : Optional.empty();
        }
      } catch (SQLException e) {
        throw failure("read", e);
      }
    }
  }

  /** Sets a value durably (writer; callers serialize writes). */
  public void putMeta(String key, String value) {
    inTransaction(() -> putMetaInTransaction(key, value));
  }

  private void putMetaInTransaction(String key, String value) throws SQLException {
    try (PreparedStatement u = writer.prepareStatement("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)")) {
      u.setString(1, key);
      u.setString(2, value);
      u.executeUpdate();
    }
  }

  // --- adding ---

  /**
   * Adds {@code valid} identifiers (each once) and records {@code invalid} ones as rejected, in one
   * transaction that also sets meta {@code checkpointKey} to {@code checkpointValue} (when not null).
   */
  public AddResult add(List<Identifier> valid, List<Identifier> invalid, Instant now, String checkpointKey,
      String checkpointValue) {
    long[] added = {0};
    inTransaction(() -> {
      try (PreparedStatement insert = writer.prepareStatement(
          "INSERT OR IGNORE INTO entry(kind, identifier) VALUES(?, ?)")) {
        for (int i = 0; i < valid.size(); i++) {
          Identifier id = valid.get(i);
          insert.setInt(1, KindCode.of(id.kind()));
          insert.setString(2, id.value());
          insert.addBatch();
          if (i % MAX_BATCH == MAX_BATCH - 1 || i == valid.size() - 1) {
            for (int count : insert.executeBatch()) {
              added[0] += Math.max(0, count);
            }
          }
        }
      }
      reject(invalid, MapOutcome.Reason.INVALID_IDENTIFIER, now);
      if (checkpointKey != null) {
        putMetaInTransaction(checkpointKey, checkpointValue);
      }
    });
    return new AddResult(added[0], valid.size() - added[0], invalid.size());
  }

  private void reject(List<Identifier> ids, MapOutcome.Reason reason, Instant now) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement insert = writer.prepareStatement(
        "INSERT OR REPLACE INTO rejected(kind, identifier, reason, at) VALUES(?, ?, ?, ?)")) {
      for (Identifier id : ids) {
        insert.setInt(1, KindCode.of(id.kind()));
        insert.setString(2, id.value());
        insert.setString(3, reason.name());
        insert.setLong(4, now.toEpochMilli());
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  // --- mapping ---

  /** Entries waiting to be mapped: without a mapping, or with a stale one. */
  public long todoCount() {
    return count("SELECT (SELECT count(*) FROM entry) - (SELECT count(*) FROM mapping WHERE stale = 0)");
  }

  /** Up to {@code limit} entries waiting to be mapped, with ids above {@code afterId}, in id order. */
  public List<Todo> todo(long afterId, int limit) {
    List<Todo> batch = new ArrayList<>(limit);
    synchronized (readLock) {
      try (PreparedStatement q = reader.prepareStatement("SELECT e.id, e.kind, e.identifier, m.id IS NOT NULL"
          + " FROM entry e LEFT JOIN mapping m ON m.id = e.id WHERE e.id > ? AND (m.id IS NULL OR m.stale = 1)"
          + " ORDER BY e.id LIMIT ?")) {
        q.setLong(1, afterId);
        q.setInt(2, limit);
        try (ResultSet r = q.executeQuery()) {
          while (r.next()) {
            batch.add(new Todo(r.getLong(1), Identifier.of(KindCode.kind(r.getInt(2)), r.getString(3)),
                r.getBoolean(4)));
          }
        }
      } catch (SQLException e) {
        throw failure("read", e);
      }
    }
    return batch;
  }

  /**
   * Stores the answer for {@code batch} ({@code entries[i]} answers {@code batch.get(i)}) in one
   * transaction: mapped entries get their ids and {@code mappedAt}; unmapped ones are removed and
   * recorded as rejected.
   */
  public Applied apply(List<Todo> batch, MapJson.Entry[] entries, Instant mappedAt, Instant now) {
    int[] counts = new int[4];
    List<Rejection> removed = new ArrayList<>();
    inTransaction(() -> {
      try (PreparedStatement upsert = writer.prepareStatement("INSERT OR REPLACE INTO mapping(id, advertising_id,"
          + " bucket_id, mapped_at, stale) VALUES(?, ?, ?, ?, 0)");
          PreparedStatement deleteEntry = writer.prepareStatement("DELETE FROM entry WHERE id = ?");
          PreparedStatement deleteMapping = writer.prepareStatement("DELETE FROM mapping WHERE id = ?")) {
        for (int i = 0; i < entries.length; i++) {
          Todo todo = batch.get(i);
          MapJson.Entry entry = entries[i];
          if (entry.isMapped()) {
            upsert.setLong(1, todo.id());
            upsert.setString(2, entry.advertisingId());
            upsert.setString(3, entry.bucketId());
            upsert.setLong(4, mappedAt.toEpochMilli());
            upsert.addBatch();
            counts[todo.mappedBefore() ? 1 : 0]++;
          } else {
            deleteEntry.setLong(1, todo.id());
            deleteEntry.addBatch();
            deleteMapping.setLong(1, todo.id());
            deleteMapping.addBatch();
            MapOutcome.Reason reason = MapOutcome.Reason.fromWire(entry.reason());
            counts[reason == MapOutcome.Reason.OPTED_OUT ? 2 : 3]++;
            removed.add(new Rejection(todo.identifier(), reason, now));
          }
        }
        upsert.executeBatch();
        if (!removed.isEmpty()) {
          deleteEntry.executeBatch();
          deleteMapping.executeBatch();
          for (MapOutcome.Reason reason : MapOutcome.Reason.values()) {
            reject(removed.stream().filter(r -> r.reason() == reason).map(Rejection::identifier).toList(), reason,
                now);
          }
        }
      }
    });
    return new Applied(counts[0], counts[1], counts[2], counts[3], removed);
  }

  // --- rotation ---

  /**
   * Receives a poll's rotated buckets and, in one transaction, marks stale every mapped entry of
   * those buckets that was mapped before its bucket's rotation, and stores {@code metaUpdates}
   * (key, value pairs). Call {@link RotationLoad#restart()} before each attempt at reading the poll.
   */
  public RotationLoad rotationLoad() {
    return new RotationLoad();
  }

  /** Collects one poll's buckets into a connection-local table; see {@link #rotationLoad()}. */
  public final class RotationLoad {
    private PreparedStatement insert;
    private int pending;

    private RotationLoad() {}

    /** Forgets buckets received so far (a retried poll starts again from its first bucket). */
    public void restart() {
      run(() -> {
        try (Statement s = writer.createStatement()) {
          s.execute("CREATE TEMP TABLE IF NOT EXISTS rotated(bucket_id TEXT PRIMARY KEY, last_updated INTEGER"
              + " NOT NULL) WITHOUT ROWID");
          s.execute("DELETE FROM rotated");
        }
        if (insert == null) {
          insert = writer.prepareStatement("INSERT OR REPLACE INTO rotated(bucket_id, last_updated) VALUES(?, ?)");
        }
        insert.clearBatch();
        pending = 0;
      });
    }

    public void add(RotatedBucket bucket) {
      run(() -> {
        insert.setString(1, bucket.bucketId());
        insert.setLong(2, bucket.lastUpdated().toEpochMilli());
        insert.addBatch();
        if (++pending == MAX_BATCH) {
          flush();
        }
      });
    }

    private void flush() {
      transaction(() -> insert.executeBatch());
      pending = 0;
    }

    /** Marks stale entries and stores the meta values; returns how many entries were marked. */
    public long commit(String... metaUpdates) {
      long[] marked = {0};
      inTransaction(() -> {
        insert.executeBatch();
        pending = 0;
        try (Statement s = writer.createStatement()) {
          marked[0] = s.executeUpdate("UPDATE mapping SET stale = 1 WHERE stale = 0"
              + " AND bucket_id IN (SELECT bucket_id FROM rotated)"
              + " AND mapped_at <= (SELECT r.last_updated FROM rotated r WHERE r.bucket_id = mapping.bucket_id)");
          s.execute("DELETE FROM rotated");
        }
        for (int i = 0; i + 1 < metaUpdates.length; i += 2) {
          putMetaInTransaction(metaUpdates[i], metaUpdates[i + 1]);
        }
      });
      run(() -> {
        insert.close();
        insert = null;
      });
      return marked[0];
    }
  }

  // --- reading ---

  public Optional<CachedMapping> get(Identifier identifier) {
    synchronized (readLock) {
      try (PreparedStatement q = reader.prepareStatement("SELECT m.advertising_id, m.bucket_id, m.mapped_at, m.stale"
          + " FROM entry e JOIN mapping m ON m.id = e.id WHERE e.kind = ? AND e.identifier = ?")) {
        q.setInt(1, KindCode.of(identifier.kind()));
        q.setString(2, identifier.value());
        try (ResultSet r = q.executeQuery()) {
          return r.next() ? Optional.of(mapping(identifier, r, 1)) : Optional.empty();
        }
      } catch (SQLException e) {
        throw failure("read", e);
      }
    }
  }

  /** Every mapped entry in the order it was first added. */
  public void forEach(Consumer<CachedMapping> action) {
    synchronized (readLock) {
      try (Statement s = reader.createStatement()) {
        s.setFetchSize(1000);
        try (ResultSet r = s.executeQuery("SELECT e.kind, e.identifier, m.advertising_id, m.bucket_id, m.mapped_at,"
            + " m.stale FROM entry e JOIN mapping m ON m.id = e.id ORDER BY e.id")) {
          while (r.next()) {
            action.accept(mapping(Identifier.of(KindCode.kind(r.getInt(1)), r.getString(2)), r, 3));
          }
        }
      } catch (SQLException e) {
        throw failure("read", e);
      }
    }
  }

  public void forEachRejection(Consumer<Rejection> action) {
    synchronized (readLock) {
      try (Statement s = reader.createStatement();
          ResultSet r = s.executeQuery("SELECT kind, identifier, reason, at FROM rejected ORDER BY at, kind,"
              + " identifier")) {
        while (r.next()) {
          action.accept(new Rejection(Identifier.of(KindCode.kind(r.getInt(1)), r.getString(2)),
              MapOutcome.Reason.valueOf(r.getString(3)), Instant.ofEpochMilli(r.getLong(4))));
        }
      } catch (SQLException e) {
        throw failure("read", e);
      }
    }
  }

  /** Entries held, mapped or not. */
  public long size() {
    return count("SELECT count(*) FROM entry");
  }

  private long count(String sql) {
    synchronized (readLock) {
      try (Statement s = reader.createStatement(); ResultSet r = s.executeQuery(sql)) {
        return r.next() ? r.getLong(1) : 0;
      } catch (SQLException e) {
        throw failure("read", e);
      }
    }
  }

  private static CachedMapping mapping(Identifier id, ResultSet r, int first) throws SQLException {
    return new CachedMapping(id, r.getString(first), r.getString(first + 1), Instant.ofEpochMilli(r.getLong(first + 2)),
        r.getInt(first + 3) == 1);
  }

  @Override
  public void close() {
    synchronized (writeLock) {
      synchronized (readLock) {
        try {
          reader.close();
          writer.close();
        } catch (SQLException e) {
          throw failure("close", e);
        }
      }
    }
  }

  // --- plumbing ---

  private interface SqlWork {
    void run() throws SQLException;
  }

  /** Runs writer work; one at a time, so that callers on several threads never share a transaction. */
  private void run(SqlWork work) {
    synchronized (writeLock) {
      try {
        work.run();
      } catch (SQLException e) {
        throw failure("write", e);
      }
    }
  }

  private void inTransaction(SqlWork work) {
    synchronized (writeLock) {
      transaction(work);
    }
  }

  private void transaction(SqlWork work) {
    try {
      writer.setAutoCommit(false);
      try {
        work.run();
        writer.commit();
      } catch (SQLException | RuntimeException e) {
        writer.rollback();
        throw e;
      } finally {
        writer.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw failure("write", e);
    }
  }

  private static UncheckedIOException failure(String what, Exception e) {
    return new UncheckedIOException(new IOException("mapping cache: cannot " + what + ": " + e.getMessage(), e));
  }
}
