package dev.veil.storage;

import dev.veil.audit.AuditLog;
import dev.veil.common.ChangeCursor;
import dev.veil.common.Deadline;
import dev.veil.common.FileProblems;
import dev.veil.common.JobLock;
import dev.veil.common.PrivateFiles;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.Versioned;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteException;
import org.sqlite.SQLiteOpenMode;

/**
 * The embedded engine: one SQLite file in WAL mode with {@code synchronous=FULL}, so a commit is on
 * disk (WAL fsynced) before {@link #write} returns and survives a SIGKILL or a power cut.
 *
 * <p>Design: exactly one writer connection, used only under {@link #writeLock}; each write is an
 * explicit {@code BEGIN IMMEDIATE … COMMIT} (IMMEDIATE takes SQLite's write lock up front, so
 * another process on the same file waits up to {@code busy_timeout} instead of failing half-way).
 * Reads go to a fixed pool of read-only connections; in WAL mode they never block the writer and
 * see every committed write. The change counter is the single row of {@code change_counter}, bumped
 * inside the write transaction; writes are serialized, so sequence numbers become visible in
 * increasing order and a change cursor is simply the highest seq read ("{@code seq > cursor}").
 *
 * <p>A call made for a request with a {@link Deadline} does not start once it has passed, and waits
 * for the writer or a reader connection only as long as it leaves. The statements themselves run on
 * local files and are not cut short.
 */
final class SqliteDatabase implements Database {
  private static final Logger LOG = LoggerFactory.getLogger(SqliteDatabase.class);

  private final String location;
  private final ReentrantLock writeLock = new ReentrantLock();
  private final Connection writer;
  private final List<Connection> readers;
  private final BlockingQueue<Connection> idleReaders;
  private final long readerWaitMillis;
  private final LocalJobLock jobLock = new LocalJobLock();
  private volatile boolean closed;

  private SqliteDatabase(
      String location, Connection writer, List<Connection> readers, long waitMillis) {
    this.location = location;
    this.writer = writer;
    this.readers = readers;
    this.idleReaders = new ArrayBlockingQueue<>(readers.size(), false, readers);
    this.readerWaitMillis = waitMillis;
  }

  /** Opens (creating the file and its directory if needed) the database in {@code file}. */
  static SqliteDatabase open(StoreUrl.Sqlite url, StoreSettings settings) {
    Path file = url.file().toAbsolutePath().normalize();
    String jdbcUrl = "jdbc:sqlite:" + file;
    List<Connection> opened = new ArrayList<>();
    try {
      Path dir = file.getParent();
      if (dir != null) {
        PrivateFiles.createDirectories(dir);
      }
      String readOnly = notWritable(file);
      if (readOnly != null) {
        throw new StoreUnavailableException(
            "cannot open embedded store " + url.describe() + ": " + readOnly, null);
      }
      keepPrivate(file);
      Connection writer = config(settings, false).createConnection(jdbcUrl);
      opened.add(writer);
      List<Connection> readers = new ArrayList<>();
      for (int i = 0; i < settings.poolSize(); i++) {
        Connection reader = config(settings, true).createConnection(jdbcUrl);
        opened.add(reader);
        readers.add(reader);
      }
      return new SqliteDatabase(url.describe(), writer, readers, settings.timeout().toMillis());
    } catch (FileAlreadyExistsException e) {
      throw new StoreUnavailableException(
          "cannot open embedded store "
              + url.describe()
              + ": "
              + e.getFile()
              + " is a file, not a directory",
          e);
    } catch (SQLException | IOException e) {
      opened.forEach(SqliteDatabase::closeQuietly);
      throw new StoreUnavailableException(
          "cannot open embedded store "
              + url.describe()
              + ": "
              + (e instanceof FileSystemException f ? FileProblems.describe(f) : e.getMessage()),
          e);
    }
  }

  /**
   * Why the store in {@code file} could not be written, or null: the file is read-only, or its
   * directory is (SQLite creates the {@code -wal} and {@code -shm} files beside it, and a new
   * database file). Checked before SQLite opens it: SQLite would open a read-only file read-only
   * without a word (the node would start and fail at its first write) and say only "unable to open
   * database file" for a read-only directory. Writable means what the operating system would allow
   * this process ({@link Files#isWritable}: access(2), so root passes permission bits but not a
   * read-only mount).
   */
  static String notWritable(Path file) {
    if (Files.exists(file) && !Files.isWritable(file)) {
      return "the store file "
          + file
          + " is not writable (read-only); make it writable, or set db (--db)"
          + " or data.dir (--data-dir) to a writable place";
    }
    Path dir = file.getParent();
    if (dir != null && Files.isDirectory(dir) && !Files.isWritable(dir)) {
      return "the directory "
          + dir
          + " is not writable (read-only), and the store must create files in it ("
          + file.getFileName()
          + ", its -wal and -shm); make it writable, or set data.dir (--data-dir) or db (--db)"
          + " to a writable place";
    }
    return null;
  }

  /**
   * Makes the database readable by its owner only: it holds every encryption key and the secret
   * salts. A new file is created empty with mode 0600 (SQLite takes an empty file for a new
   * database, and gives its -wal and -shm files the database file's mode); an existing one that
   * others may read is narrowed to 0600, with its -wal and -shm files, and the change is logged. On
   * a file system without POSIX permissions nothing is done.
   */
  private static void keepPrivate(Path file) throws IOException {
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      PrivateFiles.createFile(file);
      return;
    }
    for (String suffix : new String[] {"", "-wal", "-shm"}) {
      Path f = file.resolveSibling(file.getFileName() + suffix);
      try {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(f);
        if (!PrivateFiles.OWNER_ONLY.containsAll(mode)) {
          Files.setPosixFilePermissions(f, PrivateFiles.OWNER_ONLY);
          LOG.info("event=store_permissions_narrowed file={} mode=0600", f);
        }
      } catch (NoSuchFileException | UnsupportedOperationException e) {
        // no such -wal or -shm file (yet), or no POSIX permissions here
      }
    }
  }

  private static SQLiteConfig config(StoreSettings settings, boolean readOnly) {
    SQLiteConfig config = new SQLiteConfig();
    if (readOnly) {
      config.setOpenMode(SQLiteOpenMode.READONLY);
      config.resetOpenMode(SQLiteOpenMode.READWRITE);
      config.resetOpenMode(SQLiteOpenMode.CREATE);
    } else {
      // journal_mode is stored in the file; setting it on the writer is enough and must come first.
      config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    }
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    config.setBusyTimeout(
        Math.toIntExact(Math.min(Integer.MAX_VALUE, settings.busyTimeout().toMillis())));
    config.enforceForeignKeys(true);
    return config;
  }

  @Override
  public String engine() {
    return "sqlite";
  }

  @Override
  public String describe() {
    return location;
  }

  @Override
  public <T> T write(String operation, SqlWork<T> work) {
    refuseIfLate(operation);
    Deadline.lock(writeLock, operation + " on " + location + ": the writer connection");
    try {
      ensureOpen(operation);
      execute("BEGIN IMMEDIATE");
      boolean committed = false;
      try {
        T result = work.apply(writer);
        boolean audited = AuditLog.appendPendingIn(writer);
        execute("COMMIT");
        committed = true;
        if (audited) {
          AuditLog.committed();
        }
        return result;
      } finally {
        if (!committed) {
          rollbackQuietly();
        }
      }
    } catch (SQLException e) {
      throw unavailable(operation, e);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Adds SQLite's result code (SQLITE_FULL for a full disk, SQLITE_READONLY, SQLITE_IOERR_…), which
   * SQLite gives no SQL state for: the one thing an operator needs to see why writes fail.
   */
  @Override
  public StoreUnavailableException unavailable(String operation, SQLException e) {
    if (e instanceof SQLiteException sqlite && sqlite.getResultCode() != null) {
      return new StoreUnavailableException(
          operation + " failed on " + describe() + " (" + sqlite.getResultCode().name() + ")", e);
    }
    return Database.super.unavailable(operation, e);
  }

  @Override
  public <T> T read(String operation, SqlWork<T> work) {
    ensureOpen(operation);
    refuseIfLate(operation);
    Connection reader = borrowReader(operation);
    try {
      return work.apply(reader);
    } catch (SQLException e) {
      throw unavailable(operation, e);
    } finally {
      idleReaders.add(reader);
    }
  }

  private Connection borrowReader(String operation) {
    long waitMillis =
        Deadline.current()
            .map(d -> Math.max(0, Math.min(readerWaitMillis, d.remainingMillis())))
            .orElse(readerWaitMillis);
    try {
      Connection c = idleReaders.poll(waitMillis, TimeUnit.MILLISECONDS);
      if (c == null) {
        throw new StoreUnavailableException(
            operation
                + " failed on "
                + location
                + ": no reader connection free after "
                + waitMillis
                + " ms",
            null);
      }
      return c;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException(operation + " interrupted on " + location, e);
    }
  }

  @Override
  public <T> ChangeCursor readChanges(
      String operation, ChangeTable<T> table, ChangeCursor since, Consumer<Versioned<T>> sink) {
    return read(
        operation,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(table.select("WHERE seq > ?"))) {
            ps.setLong(1, since.position());
            return new ChangeCursor(table.stream(ps, sink, since.position()));
          }
        });
  }

  @Override
  public long[] nextSeqs(Connection connection, int count) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "UPDATE change_counter SET value = value + ? WHERE id = 1 RETURNING value")) {
      ps.setInt(1, count);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("change_counter row is missing");
        }
        long last = rs.getLong(1);
        long[] seqs = new long[count];
        for (int i = 0; i < count; i++) {
          seqs[i] = last - count + 1 + i;
        }
        return seqs;
      }
    }
  }

  @Override
  public void lockForMigration(Connection connection) {
    // BEGIN IMMEDIATE already holds the file's write lock for the whole transaction.
  }

  @Override
  public void lockAgainstWriters(Connection connection, String table) {
    // BEGIN IMMEDIATE already holds the file's write lock for the whole transaction.
  }

  @Override
  public JobLock jobLock() {
    return jobLock;
  }

  @Override
  public boolean isReachable() {
    if (closed) {
      return false;
    }
    try {
      return read(
          "reachability check",
          c -> {
            try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 1")) {
              return rs.next();
            }
          });
    } catch (StoreUnavailableException e) {
      return false;
    }
  }

  @Override
  public void close() {
    writeLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      // Readers still borrowed are closed too; their callers then fail with a clear exception.
      readers.forEach(SqliteDatabase::closeQuietly);
      closeQuietly(writer); // last connection: SQLite checkpoints the WAL into the main file
    } finally {
      writeLock.unlock();
    }
  }

  /** Fails a request's call whose deadline has passed before the call could start. */
  private void refuseIfLate(String operation) {
    Deadline.current()
        .filter(Deadline::passed)
        .ifPresent(
            d -> {
              throw new StoreUnavailableException(
                  operation
                      + " on "
                      + location
                      + " ran out of time before it started:"
                      + " the request's deadline (db.timeout "
                      + d.budget().toMillis()
                      + " ms) passed",
                  null);
            });
  }

  private void ensureOpen(String operation) {
    if (closed) {
      throw new StoreUnavailableException(
          operation + " failed: store " + location + " is closed", null);
    }
  }

  private void execute(String sql) throws SQLException {
    try (Statement s = writer.createStatement()) {
      s.execute(sql);
    }
  }

  private void rollbackQuietly() {
    try {
      execute("ROLLBACK");
    } catch (SQLException ignored) {
      // No transaction left to roll back (SQLite may have ended it on the error already).
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException ignored) {
      // Closing on shutdown or after a failed open; nothing more to do.
    }
  }
}
