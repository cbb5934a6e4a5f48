package dev.veil.sdk.internal;

import dev.veil.sdk.AddResult;
import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.Rejection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
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
 * The tables behind a {@link dev.veil.sdk.MappingCache}, in a {@link CacheFile} (SQLite, WAL,
 * {@code synchronous=FULL}: a commit is on disk when it returns, so a SIGKILL loses at most the
 * batch in flight, which is mapped again on restart). Entries are unique by (kind, identifier), so
 * nothing is ever held twice.
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
 * on {@code bucket_id}: a poll's marking ({@link RotationLoad}) scans {@code mapping} once (a
 * fraction of a second per million entries, once a day) instead of every mapping paying for a
 * random index write. Thread-safe (see {@link CacheFile}).
 */
public final class MappingStore implements AutoCloseable {
  private static final String SCHEMA_VERSION = "1";
  private static final int MAX_BATCH = 10_000;
  private static final String[] SCHEMA = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS entry(id INTEGER PRIMARY KEY AUTOINCREMENT, kind INTEGER NOT NULL,"
        + " identifier TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS entry_identity ON entry(kind, identifier)",
    "CREATE TABLE IF NOT EXISTS mapping(id INTEGER PRIMARY KEY, advertising_id TEXT NOT NULL,"
        + " bucket_id TEXT NOT NULL, mapped_at INTEGER NOT NULL, stale INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS rejected(kind INTEGER NOT NULL, identifier TEXT NOT NULL, reason TEXT NOT NULL,"
        + " at INTEGER NOT NULL, PRIMARY KEY(kind, identifier)) WITHOUT ROWID",
    "INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '" + SCHEMA_VERSION + "')",
  };

  private final CacheFile file;

  private MappingStore(CacheFile file) {
    this.file = file;
  }

  /** One entry waiting to be mapped. */
  public record Todo(long id, Identifier identifier, boolean mappedBefore) {}

  /** What applying one batch's answer did; {@code removed} lists the entries taken out. */
  public record Applied(int mapped, int remapped, int optedOut, int invalid, List<Rejection> removed) {}

  /**
   * Opens the file, creating it (mode 0600) and its tables if needed.
   *
   * @throws UncheckedIOException if the file cannot be opened or was written by another version
   */
  public static MappingStore open(Path path) {
    MappingStore store = new MappingStore(CacheFile.open(path, SCHEMA));
    String version = store.meta("schema").orElse("");
    if (!version.equals(SCHEMA_VERSION)) {
      store.close();
      throw new UncheckedIOException(new IOException("mapping cache " + path + " has schema " + version
          + ", this client reads " + SCHEMA_VERSION));
    }
    return store;
  }

  // --- meta ---

  public Optional<String> meta(String key) {
    return file.read(c -> {
      try (PreparedStatement q = c.prepareStatement("SELECT value FROM meta WHERE key = ?")) {
        q.setString(1, key);
        try (ResultSet r = q.executeQuery()) {
          return r.next() ? Optional.of(r.getString(1)) : Optional.empty();
        }
      }
    });
  }

  /** Sets a value durably. */
  public void putMeta(String key, String value) {
    file.transaction(c -> putMeta(c, key, value));
  }

  static void putMeta(Connection c, String key, String value) throws SQLException {
    try (PreparedStatement u = c.prepareStatement("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)")) {
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
    file.transaction(c -> {
      try (PreparedStatement insert = c.prepareStatement("INSERT OR IGNORE INTO entry(kind, identifier) VALUES(?, ?)")) {
        for (int i = 0; i < valid.size(); i++) {
          insert.setInt(1, KindCode.of(valid.get(i).kind()));
          insert.setString(2, valid.get(i).value());
          insert.addBatch();
          if (i % MAX_BATCH == MAX_BATCH - 1 || i == valid.size() - 1) {
            for (int count : insert.executeBatch()) {
              added[0] += Math.max(0, count);
            }
          }
        }
      }
      reject(c, invalid, MapOutcome.Reason.INVALID_IDENTIFIER, now);
      if (checkpointKey != null) {
        putMeta(c, checkpointKey, checkpointValue);
      }
    });
    return new AddResult(added[0], valid.size() - added[0], invalid.size());
  }

  private static void reject(Connection c, List<Identifier> ids, MapOutcome.Reason reason, Instant now)
      throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement insert = c.prepareStatement(
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
    return file.read(c -> {
      List<Todo> batch = new ArrayList<>(limit);
      try (PreparedStatement q = c.prepareStatement("SELECT e.id, e.kind, e.identifier, m.id IS NOT NULL"
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
      }
      return batch;
    });
  }

  /**
   * Stores the answer for {@code batch} ({@code entries[i]} answers {@code batch.get(i)}) in one
   * transaction: mapped entries get their ids and {@code mappedAt}; unmapped ones are removed and
   * recorded as rejected.
   */
  public Applied apply(List<Todo> batch, MapJson.Entry[] entries, Instant mappedAt, Instant now) {
    int[] counts = new int[4];
    List<Rejection> removed = new ArrayList<>();
    file.transaction(c -> {
      try (PreparedStatement upsert = c.prepareStatement("INSERT OR REPLACE INTO mapping(id, advertising_id,"
          + " bucket_id, mapped_at, stale) VALUES(?, ?, ?, ?, 0)")) {
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
            MapOutcome.Reason reason = MapOutcome.Reason.fromWire(entry.reason());
            counts[reason == MapOutcome.Reason.OPTED_OUT ? 2 : 3]++;
            removed.add(new Rejection(todo.identifier(), reason, now));
            remove(c, todo.id());
          }
        }
        upsert.executeBatch();
      }
      for (MapOutcome.Reason reason : MapOutcome.Reason.values()) {
        reject(c, removed.stream().filter(r -> r.reason() == reason).map(Rejection::identifier).toList(), reason, now);
      }
    });
    return new Applied(counts[0], counts[1], counts[2], counts[3], removed);
  }

  private static void remove(Connection c, long id) throws SQLException {
    try (PreparedStatement deleteEntry = c.prepareStatement("DELETE FROM entry WHERE id = ?");
        PreparedStatement deleteMapping = c.prepareStatement("DELETE FROM mapping WHERE id = ?")) {
      deleteEntry.setLong(1, id);
      deleteEntry.executeUpdate();
      deleteMapping.setLong(1, id);
      deleteMapping.executeUpdate();
    }
  }

  /** Collects a poll's rotated buckets and marks the mappings they make stale; see {@link RotationLoad}. */
  public RotationLoad rotationLoad() {
    return new RotationLoad(file);
  }

  // --- reading ---

  public Optional<CachedMapping> get(Identifier identifier) {
    return file.read(c -> {
      try (PreparedStatement q = c.prepareStatement("SELECT m.advertising_id, m.bucket_id, m.mapped_at, m.stale"
          + " FROM entry e JOIN mapping m ON m.id = e.id WHERE e.kind = ? AND e.identifier = ?")) {
        q.setInt(1, KindCode.of(identifier.kind()));
        q.setString(2, identifier.value());
        try (ResultSet r = q.executeQuery()) {
          return r.next() ? Optional.of(mapping(identifier, r, 1)) : Optional.empty();
        }
      }
    });
  }

  /** Every mapped entry in the order it was first added. */
  public void forEach(Consumer<CachedMapping> action) {
    file.read(c -> {
      try (Statement s = c.createStatement()) {
        s.setFetchSize(1000);
        try (ResultSet r = s.executeQuery("SELECT e.kind, e.identifier, m.advertising_id, m.bucket_id, m.mapped_at,"
            + " m.stale FROM entry e JOIN mapping m ON m.id = e.id ORDER BY e.id")) {
          while (r.next()) {
            action.accept(mapping(Identifier.of(KindCode.kind(r.getInt(1)), r.getString(2)), r, 3));
          }
        }
      }
      return null;
    });
  }

  public void forEachRejection(Consumer<Rejection> action) {
    file.read(c -> {
      try (Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SELECT kind, identifier, reason, at FROM rejected ORDER BY at, kind,"
              + " identifier")) {
        while (r.next()) {
          action.accept(new Rejection(Identifier.of(KindCode.kind(r.getInt(1)), r.getString(2)),
              MapOutcome.Reason.valueOf(r.getString(3)), Instant.ofEpochMilli(r.getLong(4))));
        }
      }
      return null;
    });
  }

  /** Entries held, mapped or not. */
  public long size() {
    return count("SELECT count(*) FROM entry");
  }

  private long count(String sql) {
    return file.read(c -> {
      try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
        return r.next() ? r.getLong(1) : 0L;
      }
    });
  }

  private static CachedMapping mapping(Identifier id, ResultSet r, int first) throws SQLException {
    return new CachedMapping(id, r.getString(first), r.getString(first + 1),
        Instant.ofEpochMilli(r.getLong(first + 2)), r.getInt(first + 3) == 1);
  }

  @Override
  public void close() {
    file.close();
  }
}
