package dev.veil.storage;

import static org.junit.jupiter.api.Assertions.fail;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;

/**
 * A fresh, empty PostgreSQL schema for one test, dropped on {@link #close()}, so test runs in
 * parallel never see each other's rows.
 *
 * <p>The server comes from env {@value #URL_ENV} (default {@value #DEFAULT_URL}). When it cannot be
 * reached, {@link #create()} fails the test if env {@value #REQUIRE_ENV} is {@code 1}, and
 * otherwise skips it (a JUnit assumption) after a loud notice on stderr. The first failure is
 * remembered, so later tests skip without waiting for another connect timeout.
 *
 * <pre>{@code
 * try (PostgresTestDatabase pg = PostgresTestDatabase.create();
 *     Store store = Stores.open(pg.url())) { ... }
 * }</pre>
 */
public final class PostgresTestDatabase implements AutoCloseable {
  public static final String URL_ENV = "VEIL_TEST_POSTGRES_URL";
  public static final String REQUIRE_ENV = "VEIL_REQUIRE_POSTGRES";
  public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static volatile String unreachable;
  private static volatile boolean bannerShown;

  private final StoreUrl.Postgres server;
  private final String schema;

  private PostgresTestDatabase(StoreUrl.Postgres server, String schema) {
    this.server = server;
    this.schema = schema;
  }

  /** Creates a uniquely named schema, or fails / skips the calling test as described above. */
  public static PostgresTestDatabase create() {
    String base = baseUrl();
    StoreUrl.Postgres server = (StoreUrl.Postgres) StoreUrl.parse(base);
    if (unreachable != null) {
      skipOrFail(unreachable, null);
    }
    byte[] suffix = new byte[6];
    RANDOM.nextBytes(suffix);
    String schema = "veil_test_" + HexFormat.of().formatHex(suffix);
    try (Connection c = connect(server.jdbcUrl(), server);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      unreachable =
          "PostgreSQL at " + server.describe() + " is unreachable (" + e.getMessage() + ")";
      skipOrFail(unreachable, e);
    }
    return new PostgresTestDatabase(server, schema);
  }

  /** Whether the tests must fail, not skip, without PostgreSQL. */
  public static boolean required() {
    return "1".equals(System.getenv(REQUIRE_ENV));
  }

  private static String baseUrl() {
    String url = System.getenv(URL_ENV);
    return url == null || url.isBlank() ? DEFAULT_URL : url.strip();
  }

  private static void skipOrFail(String reason, Throwable cause) {
    if (required()) {
      fail(reason + "; " + REQUIRE_ENV + "=1 demands PostgreSQL", cause);
    }
    if (!bannerShown) {
      bannerShown = true;
      System.err.println(
          "\n**********************************************************************");
      System.err.println("* SKIPPING PostgreSQL tests: " + reason);
      System.err.println(
          "* Set " + URL_ENV + " to point at a server, or " + REQUIRE_ENV + "=1 to fail.");
      System.err.println(
          "**********************************************************************\n");
    }
    Assumptions.abort("PostgreSQL tests skipped: " + reason);
  }

  /** A store URL (the configured server's) with {@code currentSchema} set to the fresh schema. */
  public String url() {
    String jdbc =
        server.jdbcUrl() + (server.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema;
    String password = server.credentials().getProperty("password");
    return password == null
        ? jdbc
        : jdbc + "&password=" + URLEncoder.encode(password, StandardCharsets.UTF_8);
  }

  public String schema() {
    return schema;
  }

  /** A plain JDBC connection (auto-commit on) whose search path is the fresh schema. */
  public Connection connect() throws SQLException {
    return connect(url(), server);
  }

  private static Connection connect(String jdbcUrl, StoreUrl.Postgres server) throws SQLException {
    Properties props = new Properties();
    props.putAll(server.credentials());
    props.setProperty("connectTimeout", "3");
    props.setProperty("loginTimeout", "5");
    return DriverManager.getConnection(jdbcUrl, props);
  }

  /** Drops the schema and everything in it. Close stores using it first. */
  @Override
  public void close() {
    try (Connection c = connect(server.jdbcUrl(), server);
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop test schema " + schema, e);
    }
  }
}
