package dev.veil.sdk.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The SQLite file of a mapping cache and its two connections: a writer, whose every use holds the
 * write lock (so that callers on several threads never share a transaction), and a reader, with a
 * lock of its own, which sees committed data only (WAL), so reads never wait for writes.
 *
 * <p>Settings: WAL journal with {@code synchronous=FULL} (a commit is on disk when it returns),
 * 16 KiB pages for a new file, a checkpoint every 32 MiB of WAL, page caches of 64 MiB (writer)
 * and 16 MiB (reader). The file is created with mode 0600: it holds personal data.
 */
final class CacheFile implements AutoCloseable {
  private static final int WRITER_CACHE_KIB = 64 * 1024;
  private static final int READER_CACHE_KIB = 16 * 1024;

  /** Work on a connection. */
  interface Work {
    void run(Connection c) throws SQLException;
  }

  /** A query on a connection. */
  interface Query<T> {
    T run(Connection c) throws SQLException;
  }

  private final Connection writer;
  private final Connection reader;
  private final Object writeLock = new Object();
  private final Object readLock = new Object();

  private CacheFile(Connection writer, Connection reader) {
    this.writer = writer;
    this.reader = reader;
  }

  /** Opens (or creates) the file and runs {@code schema} in one transaction. */
  static CacheFile open(Path file, String... schema) {
    createPrivately(file);
    try {
      Connection writer = connect(file, WRITER_CACHE_KIB);
      try (Statement s = writer.createStatement()) {
        // 16 KiB pages (a new file only; an existing one keeps its size): a bulk add of a million
        // entries touches fewer uniqueness-index pages, about a quarter faster than with 4 KiB.
        s.execute("PRAGMA page_size=16384");
        s.execute("PRAGMA journal_mode=WAL");
        // Checkpoint every 32 MiB of WAL rather than the default 4 MiB: fewer syncs in bulk runs.
        s.execute("PRAGMA wal_autocheckpoint=2048");
      }
      CacheFile opened = new CacheFile(writer, connect(file, READER_CACHE_KIB));
      opened.transaction(c -> {
        try (Statement s = c.createStatement()) {
          for (String ddl : schema) {
            s.execute(ddl);
          }
        }
      });
      return opened;
    } catch (SQLException e) {
      throw failure("open " + file, e);
    }
  }

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

  /** Runs {@code work} on the writer in autocommit mode (each statement its own transaction). */
  void write(Work work) {
    synchronized (writeLock) {
      try {
        work.run(writer);
      } catch (SQLException e) {
        throw failure("write", e);
      }
    }
  }

  /** Runs {@code work} on the writer in one transaction: all of it is committed, or none. */
  void transaction(Work work) {
    synchronized (writeLock) {
      try {
        writer.setAutoCommit(false);
        try {
          work.run(writer);
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
  }

  /** Runs {@code query} on the reader. */
  <T> T read(Query<T> query) {
    synchronized (readLock) {
      try {
        return query.run(reader);
      } catch (SQLException e) {
        throw failure("read", e);
      }
    }
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

  static UncheckedIOException failure(String what, Exception e) {
    return new UncheckedIOException(new IOException("mapping cache: cannot " + what + ": " + e.getMessage(), e));
  }
}
