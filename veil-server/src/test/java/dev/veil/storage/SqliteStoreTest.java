package dev.veil.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.StoreUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on the embedded engine, plus its SQLite settings. */
class SqliteStoreTest extends StoreContractTest {
  @TempDir Path dir;

  private Path file() {
    return dir.resolve("nested").resolve("veil.db");
  }

  @Override
  protected Store openStore() {
    return Stores.open("sqlite:" + file());
  }

  @Override
  protected Connection connectDirectly() throws SQLException {
    try {
      Files.createDirectories(file().getParent());
    } catch (IOException e) {
      throw new SQLException("cannot create " + file().getParent(), e);
    }
    return DriverManager.getConnection("jdbc:sqlite:" + file());
  }

  @Test
  void open_createsTheDirectory_andDescribesTheFile() {
    Store store = open();
    assertThat(Files.isRegularFile(file())).isTrue();
    assertThat(store.describe()).isEqualTo("sqlite:" + file().toAbsolutePath().normalize());
  }

  @Test
  void open_acceptsEveryEmbeddedUrlForm() {
    for (String url :
        new String[] {file().toString(), "jdbc:sqlite:" + file(), "sqlite://" + file()}) {
      try (Store store = Stores.open(url)) {
        assertThat(store.describe()).isEqualTo("sqlite:" + file().toAbsolutePath().normalize());
      }
    }
  }

  @Test
  void writer_usesWalWithFullSync_andForeignKeys() {
    JdbcStore store = (JdbcStore) open();
    String settings =
        store
            .database()
            .write(
                "read pragmas",
                pragmas("journal_mode", "synchronous", "foreign_keys", "busy_timeout"));
    assertThat(settings).isEqualTo("wal,2,1,5000"); // synchronous 2 = FULL
  }

  @Test
  void readers_useFullSync_andForeignKeys() {
    JdbcStore store = (JdbcStore) open();
    String settings =
        store
            .database()
            .read("read pragmas", pragmas("journal_mode", "synchronous", "foreign_keys"));
    assertThat(settings).isEqualTo("wal,2,1");
  }

  @Test
  void aWriteThatFindsTheDiskFull_isUnavailable_namingSqlitesReason() {
    JdbcStore store = (JdbcStore) open();
    // A file that may not grow is what a full disk looks like to SQLite: SQLITE_FULL.
    store
        .database()
        .write("cap the file", c -> pragma(c, "max_page_count = " + pragma(c, "page_count")));

    assertThatThrownBy(
            () ->
                store
                    .database()
                    .write(
                        "fill the file",
                        c -> {
                          try (Statement s = c.createStatement()) {
                            s.execute("CREATE TABLE filler (b BLOB)");
                            s.execute("INSERT INTO filler VALUES (randomblob(1000000))");
                          }
                          return null;
                        }))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("fill the file failed on " + store.describe() + " (SQLITE_FULL)");
  }

  /** Reads the values of {@code names}, joined by commas. */
  private static SqlWork<String> pragmas(String... names) {
    return c -> {
      List<String> values = new ArrayList<>();
      for (String name : names) {
        values.add(pragma(c, name));
      }
      return String.join(",", values);
    };
  }

  private static String pragma(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
