package dev.veil.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.veil.common.StoreUnavailableException;
import dev.veil.optout.OptOut;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store contract on PostgreSQL (a fresh schema per test), plus what only matters with several
 * nodes on one database: concurrent migrations, a job lock across nodes, writes seen by peers.
 */
class PostgresStoreTest extends StoreContractTest {
  private PostgresTestDatabase database;

  @BeforeEach
  void createSchema() {
    database = PostgresTestDatabase.create();
  }

  @Override
  protected Store openStore() {
    return Stores.open(database.url(), StoreSettings.defaults().withPoolSize(3));
  }

  @Override
  protected Duration saveRotationsBudget() {
    return Duration.ofSeconds(3); // ~0.2-0.4 s here; room for a loaded CI machine
  }

  @Override
  protected Connection connectDirectly() throws SQLException {
    return database.connect();
  }

  @Override
  protected void afterStoresClosed() {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void open_onTwoNodesAtOnce_migratesExactlyOnce() throws Exception {
    List<Store> stores = concurrently(4, i -> this::open);
    assertThat(stores).allSatisfy(s -> assertThat(s.isReachable()).isTrue());
    try (Connection c = database.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM schema_version")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(Migrator.MIGRATIONS.size());
    }
  }

  @Test
  void writesOfOneNode_areSeenByAnother() {
    Store a = open();
    Store b = open();
    a.optOuts().record(hash(1), T0);
    assertThat(b.optOuts().find(hash(1))).get().extracting(OptOut::optedOutAt).isEqualTo(T0);
    assertThat(b.optOuts().record(hash(1), T0.plusSeconds(1)).value().optedOutAt()).isEqualTo(T0);
  }

  @Test
  void jobLock_excludesTheSameJobOnAnotherNode() throws Exception {
    Store a = open();
    Store b = open();

    whileJobRuns(
        a, "salts", () -> assertThat(b.jobLock().runExclusive("salts", () -> "b")).isEmpty());

    assertThat(b.jobLock().runExclusive("salts", () -> "b")).contains("b");
  }

  @Test
  void sessions_commitSynchronously() {
    JdbcStore store = (JdbcStore) open();
    String settings = store.database().read("read settings", c -> setting(c, "synchronous_commit"));
    assertThat(settings).isEqualTo("on");
  }

  @Test
  void sqlErrors_becomeStoreUnavailable_withoutRowValues() {
    JdbcStore store = (JdbcStore) open();
    SqlWork<Integer> insertTwice =
        c -> {
          try (Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO meta (name, value) VALUES ('SECRET-NAME', '\\x00')");
            return s.executeUpdate(
                "INSERT INTO meta (name, value) VALUES ('SECRET-NAME', '\\x00')");
          }
        };
    Throwable thrown =
        catchThrowable(() -> store.database().write("duplicate insert", insertTwice));
    assertThat(thrown)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("duplicate insert")
        .hasMessageContaining("23505");
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage())).doesNotContain("SECRET");
    }
    assertThat(store.meta().get("SECRET-NAME")).isEmpty(); // rolled back
  }

  @Test
  void describe_isTheUrlWithoutPassword() {
    Store store = open();
    assertThat(store.describe())
        .startsWith("postgresql://")
        .contains("currentSchema=" + database.schema())
        .doesNotContain("password");
  }

  private static String setting(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
