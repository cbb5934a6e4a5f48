package dev.veil.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.veil.common.Causes;
import dev.veil.common.ChangeCursor;
import dev.veil.common.JobLock;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.Versioned;
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
import java.util.function.Consumer;

/**
 * The PostgreSQL engine: a small HikariCP pool with auto-commit off, so every {@link #write} is an
 * explicit transaction and every {@link #read} can stream through a server-side cursor (pgjdbc only
 * uses one when auto-commit is off and a fetch size is set).
 *
 * <p>Durability: each session starts with {@code synchronous_commit=on} (sent as the startup {@code
 * options}), whatever the server's default, so a commit returns only after its WAL record is
 * flushed. A URL that sets {@code options} itself replaces all session options below and takes
 * responsibility for them.
 *
 * <p>Bounded calls: the pool hands out a connection within {@link StoreSettings#timeout()} or fails;
 * connecting is bounded by the same time, every statement by {@code statement_timeout} (per round
 * trip: a streamed read is not one long statement) and every network read by the socket timeout.
 * An {@link OutageBreaker} then makes calls fail at once while the database is known to be down.
 * Sessions also end a transaction left idle for a minute (a node frozen mid-transaction releases its
 * row locks) and send TCP keepalives, so the server notices a vanished node and drops its locks.
 *
 * <p>Change feed: rows carry the id of the transaction that wrote them ({@code writer_xid}, set by
 * a trigger); {@link #readChanges} returns a transaction-id watermark as cursor (the package
 * documentation has the argument). Needs PostgreSQL 13 or newer ({@code xid8}).
 *
 * <p>Error details: sessions run with pgjdbc's {@code logServerErrorDetail=false}, so exception
 * messages never quote row values (a unique violation would otherwise print the key).
 */
final class PostgresDatabase implements Database {
  private static final int REACHABILITY_TIMEOUT_SECONDS = 2;
  private static final int MIN_SERVER_VERSION = 130_000;
  private static final Duration IDLE_IN_TRANSACTION_LIMIT = Duration.ofMinutes(1);
  private static final Duration BREAKER_RETRY = Duration.ofSeconds(1);

  private final StoreUrl.Postgres url;
  private final Properties sessionProperties;
  private final HikariDataSource pool;
  private final String schema;
  private final PostgresJobLock jobLock;
  private final OutageBreaker breaker = new OutageBreaker(BREAKER_RETRY, System::nanoTime);

  private PostgresDatabase(
      StoreUrl.Postgres url, Properties sessionProperties, HikariDataSource pool, String schema) {
    this.url = url;
    this.sessionProperties = sessionProperties;
    this.pool = pool;
    this.schema = schema;
    this.jobLock = new PostgresJobLock(this);
  }

  /**
   * Connects and checks the server version and that the target schema exists.
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
        ResultSet rs = s.executeQuery("SELECT current_schema(), current_setting('server_version_num')::int")) {
      String schema = rs.next() ? rs.getString(1) : null;
      int version = schema == null ? 0 : rs.getInt(2);
      c.commit();
      if (schema == null) {
        throw new StoreUnavailableException(
            "PostgreSQL store "
                + url.describe()
                + " has no usable schema (does the currentSchema exist?)",
            null);
      }
      if (version < MIN_SERVER_VERSION) {
        throw new StoreUnavailableException(
            "PostgreSQL store " + url.describe() + " runs server version " + version
                + "; Veil needs PostgreSQL 13 or newer", null);
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
    props.setProperty("connectTimeout", Long.toString(seconds(settings.timeout())));
    props.setProperty("loginTimeout", Long.toString(seconds(settings.timeout())));
    props.setProperty("socketTimeout", Long.toString(seconds(settings.socketTimeout())));
    props.setProperty("tcpKeepAlive", "true");
    if (!url.jdbcUrl().contains("options=")) {
      props.setProperty("options", String.join(" ",
          "-c synchronous_commit=on",
          "-c statement_timeout=" + settings.timeout().toMillis(),
          "-c idle_in_transaction_session_timeout=" + IDLE_IN_TRANSACTION_LIMIT.toMillis(),
          "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"));
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
    long timeoutMs = Math.max(250, s.timeout().toMillis());
    config.setConnectionTimeout(timeoutMs);
    config.setValidationTimeout(Math.max(250, timeoutMs / 2));
    config.setInitializationFailTimeout(1); // one attempt at start: fail fast and clearly
    return config;
  }

  private static long seconds(Duration d) {
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }

  /** The innermost cause's message (the driver wraps it), an unknown host said as such. */
  static String rootMessage(Throwable e) {
    Throwable t = Causes.root(e);
    return t instanceof java.net.UnknownHostException ? "unknown host " + t.getMessage() : Causes.rootMessage(t);
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
    return inTransaction(operation, false, work);
  }

  @Override
  public <T> T read(String operation, SqlWork<T> work) {
    return inTransaction(operation, false, work);
  }

  /**
   * One read-only REPEATABLE READ transaction, so the watermark and the rows come from one snapshot:
   * the cursor returned is that snapshot's {@code xmin}, and the rows read are those written by
   * transactions at or above the previous cursor ({@code writer_xid >= since}; every row from
   * {@link ChangeCursor#START}).
   */
  @Override
  public <T> ChangeCursor readChanges(
      String operation, ChangeTable<T> table, ChangeCursor since, Consumer<Versioned<T>> sink) {
    return inTransaction(operation, true, c -> {
      try (Statement s = c.createStatement()) {
        s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      }
      long watermark;
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT pg_snapshot_xmin(pg_current_snapshot())::text")) {
        rs.next();
        watermark = Long.parseLong(rs.getString(1));
      }
      boolean all = since.equals(ChangeCursor.START);
      try (PreparedStatement ps =
          c.prepareStatement(table.select(all ? "" : "WHERE writer_xid >= CAST(? AS xid8)"))) {
        if (!all) {
          ps.setString(1, Long.toString(since.position()));
        }
        table.stream(ps, sink, 0);
      }
      return new ChangeCursor(watermark);
    });
  }

  /** Runs {@code work} in a transaction; {@code background} for the catch-up poll (see {@link OutageBreaker}). */
  private <T> T inTransaction(String operation, boolean background, SqlWork<T> work) {
    if (background) {
      breaker.beforeBackgroundCall(operation, url.describe());
    } else {
      breaker.beforeCall(operation, url.describe());
    }
    try (Connection c = pool.getConnection()) {
      boolean committed = false;
      try {
        T result = work.apply(c);
        c.commit();
        committed = true;
        breaker.succeeded();
        return result;
      } finally {
        if (!committed) {
          rollbackQuietly(c);
        }
      }
    } catch (SQLException e) {
      breaker.failed(e);
      throw unavailable(operation, e);
    } finally {
      if (background) {
        breaker.backgroundCallEnded();
      }
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

  /**
   * Takes the migration lock; lifts the statement and socket timeouts for the rest of the
   * transaction first, since a migration of a large table (or waiting for another node's) may take
   * longer than a request may.
   */
  @Override
  public void lockForMigration(Connection connection) throws SQLException {
    connection.setNetworkTimeout(Runnable::run, 0); // the pool restores it when the connection returns
    try (Statement s = connection.createStatement()) {
      s.execute("SET LOCAL statement_timeout = 0");
    }
    try (PreparedStatement ps = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      ps.setLong(1, advisoryKey("migrations"));
      ps.executeQuery().close();
    }
  }

  /**
   * {@code SHARE ROW EXCLUSIVE} conflicts with itself and with the lock every {@code INSERT},
   * {@code UPDATE} and {@code DELETE} takes, not with plain reads. Taken first in a READ COMMITTED
   * transaction, each later statement's snapshot includes what the writers before it committed.
   */
  @Override
  public void lockAgainstWriters(Connection connection, String table) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("LOCK TABLE " + table + " IN SHARE ROW EXCLUSIVE MODE");
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

  /**
   * A new session outside the pool (auto-commit on), for locks held across a whole job. Fails at
   * once while the database is known to be unreachable.
   */
  Connection openDedicatedConnection(String operation) throws SQLException {
    if (pool.isClosed()) {
      throw new SQLException("store is closed", "08003");
    }
    breaker.beforeCall(operation, url.describe());
    try {
      Connection c = DriverManager.getConnection(url.jdbcUrl(), sessionProperties);
      breaker.succeeded();
      return c;
    } catch (SQLException e) {
      breaker.failed(e);
      throw e;
    }
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
