package dev.veil.storage;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.pool.HikariPool;
import dev.veil.audit.AuditLog;
import dev.veil.common.Causes;
import dev.veil.common.ChangeCursor;
import dev.veil.common.Deadline;
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
 * The PostgreSQL engine: a small HikariCP pool; every {@link #write} and {@link #read} turns
 * auto-commit off on its connection, so each is an explicit transaction and a read can stream
 * through a server-side cursor (pgjdbc only uses one when auto-commit is off and a fetch size is
 * set). Pooled connections idle with auto-commit on, so the pool's connection check ({@code SELECT
 * 1}) opens no transaction that would need a second round trip to end.
 *
 * <p>Durability: each session starts with {@code synchronous_commit=on} (sent as the startup {@code
 * options}), whatever the server's default, so a commit returns only after its WAL record is
 * flushed. A URL that sets {@code options} itself replaces all session options below and takes
 * responsibility for them.
 *
 * <p>Bounded calls: a call made for a request runs under the request's {@link Deadline}: it does
 * not start once the deadline has passed, waits for a pooled connection only as long as leaves time
 * to check the connection ({@link StoreSettings#validationTimeout()}), and its statements end at
 * the deadline, when a {@link DeadlineWatchdog} aborts the connection (a frozen server answers
 * neither the statement nor a cancel request). A call without a deadline (the start, the catch-up,
 * jobs) waits for a connection up to {@link StoreSettings#timeout()}, each statement is bounded by
 * {@code statement_timeout} (per round trip: a streamed read is not one long statement) and every
 * network read by the socket timeout. Connecting is bounded by {@link StoreSettings#timeout()} too.
 * An {@link OutageBreaker} then makes calls fail at once while the database is known to be down.
 * Sessions also end a transaction left idle for a minute (a node frozen mid-transaction releases
 * its row locks) and send TCP keepalives, so the server notices a vanished node and drops its
 * locks.
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
  private final HikariPool pool;
  private final StoreSettings settings;
  private final String schema;
  private final PostgresJobLock jobLock;
  private final OutageBreaker breaker = new OutageBreaker(BREAKER_RETRY, System::nanoTime);
  private final DeadlineWatchdog watchdog = new DeadlineWatchdog("veil-store-deadline");
  private volatile boolean closed;

  private PostgresDatabase(
      StoreUrl.Postgres url,
      Properties sessionProperties,
      HikariPool pool,
      StoreSettings settings,
      String schema) {
    this.url = url;
    this.sessionProperties = sessionProperties;
    this.pool = pool;
    this.settings = settings;
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
    HikariPool pool;
    try {
      HikariConfig config = poolConfig(url, props, settings);
      config.validate();
      pool = new HikariPool(config);
    } catch (RuntimeException e) {
      throw new StoreUnavailableException(
          "cannot connect to PostgreSQL store " + url.describe() + ": " + rootMessage(e), e);
    }
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT current_schema(), current_setting('server_version_num')::int")) {
      String schema = rs.next() ? rs.getString(1) : null;
      int version = schema == null ? 0 : rs.getInt(2);
      if (schema == null) {
        throw new StoreUnavailableException(
            "PostgreSQL store "
                + url.describe()
                + " has no usable schema (does the currentSchema exist?)",
            null);
      }
      if (version < MIN_SERVER_VERSION) {
        throw new StoreUnavailableException(
            "PostgreSQL store "
                + url.describe()
                + " runs server version "
                + version
                + "; Veil needs PostgreSQL 13 or newer",
            null);
      }
      return new PostgresDatabase(url, props, pool, settings, schema);
    } catch (SQLException | RuntimeException e) {
      shutdown(pool);
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
      props.setProperty(
          "options",
          String.join(
              " ",
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
    config.setAutoCommit(true); // each call turns it off for its own transaction
    config.setMaximumPoolSize(s.poolSize());
    config.setMinimumIdle(Math.min(2, s.poolSize()));
    config.setConnectionTimeout(Math.max(250, s.timeout().toMillis()));
    // A query, not JDBC's isValid: pgjdbc rounds isValid's timeout up to whole seconds, and the
    // check must end within the time a request leaves it (the network timeout bounds the query).
    config.setConnectionTestQuery("SELECT 1");
    config.setValidationTimeout(s.validationTimeout().toMillis());
    config.setInitializationFailTimeout(1); // one attempt at start: fail fast and clearly
    return config;
  }

  private static void shutdown(HikariPool pool) {
    try {
      pool.shutdown();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static long seconds(Duration d) {
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }

  /** The innermost cause's message (the driver wraps it), an unknown host said as such. */
  static String rootMessage(Throwable e) {
    Throwable t = Causes.root(e);
    return t instanceof java.net.UnknownHostException
        ? "unknown host " + t.getMessage()
        : Causes.rootMessage(t);
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
    boolean[] audited = {false};
    T result =
        inTransaction(
            operation,
            false,
            c -> {
              T r = work.apply(c);
              audited[0] = AuditLog.appendPendingIn(c);
              return r;
            });
    if (audited[0]) {
      AuditLog.committed();
    }
    return result;
  }

  @Override
  public <T> T read(String operation, SqlWork<T> work) {
    return inTransaction(operation, false, work);
  }

  /**
   * One read-only REPEATABLE READ transaction, so the watermark and the rows come from one
   * snapshot: the cursor returned is that snapshot's {@code xmin}, and the rows read are those
   * written by transactions at or above the previous cursor ({@code writer_xid >= since}; every row
   * from {@link ChangeCursor#START}).
   */
  @Override
  public <T> ChangeCursor readChanges(
      String operation, ChangeTable<T> table, ChangeCursor since, Consumer<Versioned<T>> sink) {
    return inTransaction(
        operation,
        true,
        c -> {
          try (Statement s = c.createStatement()) {
            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
          }
          long watermark;
          try (Statement s = c.createStatement();
              ResultSet rs =
                  s.executeQuery("SELECT pg_snapshot_xmin(pg_current_snapshot())::text")) {
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

  /**
   * Runs {@code work} in a transaction, within the current {@link Deadline} if there is one; {@code
   * background} for the catch-up poll (see {@link OutageBreaker}).
   */
  private <T> T inTransaction(String operation, boolean background, SqlWork<T> work) {
    Deadline deadline = Deadline.current().orElse(null);
    if (deadline != null && deadline.passed()) {
      throw late(operation, deadline, "before it started");
    }
    if (background) {
      breaker.beforeBackgroundCall(operation, url.describe());
    } else {
      breaker.beforeCall(operation, url.describe());
    }
    try (Connection c = checkOut(operation, deadline)) {
      return deadline == null ? transaction(c, work) : watched(operation, c, deadline, work);
    } catch (SQLException e) {
      breaker.failed(e);
      throw unavailable(operation, e);
    } finally {
      if (background) {
        breaker.backgroundCallEnded();
      }
    }
  }

  /**
   * A pooled connection: without a deadline, within the pool's timeout; with one, within what the
   * deadline leaves once the pool's check of an idle connection (which may run after the wait) is
   * allowed for, so that checking out never outlasts the deadline.
   */
  private Connection checkOut(String operation, Deadline deadline) throws SQLException {
    if (deadline == null) {
      return pool.getConnection();
    }
    long waitMillis = deadline.remainingMillis() - settings.validationTimeout().toMillis();
    if (waitMillis <= 0) {
      throw late(operation, deadline, "before a pooled connection could be checked out");
    }
    return pool.getConnection(waitMillis);
  }

  /** {@link #transaction}, with the connection aborted if the deadline passes before it ends. */
  private <T> T watched(String operation, Connection c, Deadline deadline, SqlWork<T> work)
      throws SQLException {
    DeadlineWatchdog.Watch watch = watchdog.watch(c, deadline);
    try {
      return transaction(c, work);
    } catch (SQLException e) {
      watch.close(); // settles whether the watchdog aborted the connection
      if (watch.fired()) {
        breaker.failed(e); // the server did not answer within what the request had left
        throw late(operation, deadline, "while waiting for the database's answer");
      }
      throw e;
    } finally {
      watch.close(); // before the connection goes back to the pool
    }
  }

  /** One transaction on {@code c}: committed, or rolled back if {@code work} fails. */
  private <T> T transaction(Connection c, SqlWork<T> work) throws SQLException {
    c.setAutoCommit(false); // no round trip: pgjdbc sends BEGIN with the first statement
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
  }

  private StoreUnavailableException late(String operation, Deadline deadline, String when) {
    return new StoreUnavailableException(
        operation
            + " on "
            + url.describe()
            + " ran out of time "
            + when
            + ": the request's deadline (db.timeout "
            + deadline.budget().toMillis()
            + " ms) passed",
        null);
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
    connection.setNetworkTimeout(
        Runnable::run, 0); // the pool restores it when the connection returns
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
    if (closed) {
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
    if (closed) {
      return false;
    }
    try (Connection c = pool.getConnection()) {
      return c.isValid(REACHABILITY_TIMEOUT_SECONDS);
    } catch (SQLException e) {
      return false;
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    shutdown(pool);
    watchdog.close();
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // The connection is broken; the pool discards it.
    }
  }
}
