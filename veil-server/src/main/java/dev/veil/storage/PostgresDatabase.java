package dev.veil.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.veil.common.JobLock;
import dev.veil.common.StoreUnavailableException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;

/**
 * The PostgreSQL engine: a small HikariCP pool with auto-commit off, so every {@link #write} is an
 * explicit transaction and every {@link #read} can stream through a server-side cursor (pgjdbc only
 * uses one when auto-commit is off and a fetch size is set).
 *
 * <p>Durability: each session starts with {@code synchronous_commit=on} (sent as the startup {@code
 * options}), whatever the server's default, so a commit returns only after its WAL record is
 * flushed. A URL that sets {@code options} itself replaces this and takes responsibility for it.
 *
 * <p>Change sequence: numbers come from the shared {@code change_seq} sequence. They are unique and
 * increase in the order they are taken, but concurrent transactions may commit in another order, so
 * a reader can see seq 12 before seq 11 becomes visible. Readers that poll "after the highest seq
 * seen" must therefore re-read a small window below it (see the package documentation).
 *
 * <p>Error details: sessions run with pgjdbc's {@code logServerErrorDetail=false}, so exception
 * messages never quote row values (a unique violation would otherwise print the key).
 */
final class PostgresDatabase implements Database {
  private static final int REACHABILITY_TIMEOUT_SECONDS = 2;

  private final StoreUrl.Postgres url;
  private final Properties sessionProperties;
  private final HikariDataSource pool;
  private final String schema;
  private final PostgresJobLock jobLock;

  private PostgresDatabase(
      StoreUrl.Postgres url, Properties sessionProperties, HikariDataSource pool, String schema) {
    this.url = url;
    this.sessionProperties = sessionProperties;
    this.pool = pool;
    this.schema = schema;
    this.jobLock = new PostgresJobLock(this);
  }

  /**
   * Connects and checks that the target schema exists.
   *
   * @throws StoreUnavailableException naming the URL (without password) when that fails
   */
  static PostgresDatabase open(StoreUrl.Postgres url, StoreSettings settings) {
    Properties props = sessionProperties(url, settings);
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(poolConfig(url, props, settings));
    } catch (RuntimeException e) {
      throw new StoreUnavailableException(
          "cannot connect to PostgreSQL store " + url.describe() + ": " + rootMessage(e), e);
    }
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_schema()")) {
      String schema = rs.next() ? rs.getString(1) : null;
      c.commit();
      if (schema == null) {
        throw new StoreUnavailableException(
            "PostgreSQL store "
                + url.describe()
                + " has no usable schema (does the currentSchema exist?)",
            null);
      }
      return new PostgresDatabase(url, props, pool, schema);
    } catch (SQLException | RuntimeException e) {
      pool.close();
      if (e instanceof StoreUnavailableException sue) {
        throw sue;
      }
      throw new StoreUnavailableException(
          "cannot use PostgreSQL store " + url.describe() + ": " + rootMessage(e), e);
    }
  }

  private static Properties sessionProperties(StoreUrl.Postgres url, StoreSettings settings) {
    Properties props = new Properties();
    props.putAll(url.credentials());
    props.setProperty("logServerErrorDetail", "false");
    props.setProperty("ApplicationName", "veil");
    props.setProperty("connectTimeout", Long.toString(seconds(settings.connectTimeout())));
    props.setProperty("loginTimeout", Long.toString(seconds(settings.connectTimeout())));
    props.setProperty("socketTimeout", Long.toString(seconds(settings.socketTimeout())));
    if (!url.jdbcUrl().contains("options=")) {
      props.setProperty("options", "-c synchronous_commit=on");
    }
    return props;
  }

  private static HikariConfig poolConfig(StoreUrl.Postgres url, Properties props, StoreSettings s) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("veil-store");
    config.setJdbcUrl(url.jdbcUrl());
    config.setDataSourceProperties(props);
    config.setAutoCommit(false);
    config.setMaximumPoolSize(s.poolSize());
    config.setMinimumIdle(Math.min(2, s.poolSize()));
    config.setConnectionTimeout(Math.max(250, s.connectTimeout().toMillis()));
    config.setInitializationFailTimeout(1); // one attempt at start: fail fast and clearly
    return config;
  }

  private static long seconds(Duration d) {
    return Math.max(1, d.toSeconds());
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  @Override
  public String engine() {
    return "postgresql";
  }

  @Override
  public String describe() {
    return url.describe();
  }

  @Override
  public <T> T write(String operation, SqlWork<T> work) {
    return inTransaction(operation, work);
  }

  @Override
  public <T> T read(String operation, SqlWork<T> work) {
    return inTransaction(operation, work);
  }

  private <T> T inTransaction(String operation, SqlWork<T> work) {
    try (Connection c = pool.getConnection()) {
      boolean committed = false;
      try {
        T result = work.apply(c);
        c.commit();
        committed = true;
        return result;
      } finally {
        if (!committed) {
          rollbackQuietly(c);
        }
      }
    } catch (SQLException e) {
      throw unavailable(operation, e);
    }
  }

  @Override
  public long[] nextSeqs(Connection connection, int count) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement("SELECT nextval('change_seq') FROM generate_series(1, ?)")) {
      ps.setInt(1, count);
      long[] seqs = new long[count];
      try (ResultSet rs = ps.executeQuery()) {
        for (int i = 0; i < count; i++) {
          if (!rs.next()) {
            throw new SQLException("change_seq returned too few values");
          }
          seqs[i] = rs.getLong(1);
        }
      }
      Arrays.sort(seqs); // generate_series yields them in order today; sorting makes it a promise
      return seqs;
    }
  }

  @Override
  public void lockForMigration(Connection connection) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      ps.setLong(1, advisoryKey("migrations"));
      ps.executeQuery().close();
    }
  }

  @Override
  public JobLock jobLock() {
    return jobLock;
  }

  /** A 64-bit advisory lock key for {@code name}, stable across JVMs and scoped to the schema. */
  long advisoryKey(String name) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(("veil:" + schema + ":" + name).getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(digest).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  /** A new session outside the pool (auto-commit on), for locks held across a whole job. */
  Connection openDedicatedConnection() throws SQLException {
    if (pool.isClosed()) {
      throw new SQLException("store is closed", "08003");
    }
    return DriverManager.getConnection(url.jdbcUrl(), sessionProperties);
  }

  @Override
  public boolean isReachable() {
    if (pool.isClosed()) {
      return false;
    }
    try (Connection c = pool.getConnection()) {
      boolean valid = c.isValid(REACHABILITY_TIMEOUT_SECONDS);
      c.rollback();
      return valid;
    } catch (SQLException e) {
      return false;
    }
  }

  @Override
  public void close() {
    pool.close();
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // The connection is broken; the pool discards it.
    }
  }
}
