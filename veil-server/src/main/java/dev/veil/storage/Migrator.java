package dev.veil.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a database to the newest schema version. Each version is one SQL file per engine, {@code
 * db/<engine>/V<n>__<name>.sql}, listed in {@link #MIGRATIONS}; applied versions are recorded in
 * {@code schema_version}. All pending versions run in one transaction, under a lock that makes a
 * second process starting at the same moment wait and then find nothing left to do (PostgreSQL: a
 * transaction-scoped advisory lock; SQLite: the write lock of {@code BEGIN IMMEDIATE}).
 *
 * <p>Migrations are append-only: never edit a released file, add the next version instead, and
 * write it for both engines with the same tables and columns.
 */
final class Migrator {
  private static final Logger log = LoggerFactory.getLogger(Migrator.class);

  /** Every schema version, in order. Append only. */
  static final List<Migration> MIGRATIONS =
      List.of(
          new Migration(1, "init"),
          new Migration(2, "deduction"),
          new Migration(3, "multi_node"),
          new Migration(4, "client_secret"),
          new Migration(5, "site"),
          new Migration(6, "bucket_refresh"),
          new Migration(7, "webhook"),
          new Migration(8, "audit"),
          new Migration(9, "deduction_lifecycle"));

  /** One schema version. */
  record Migration(int version, String name) {
    String resource(String engine) {
      return "db/" + engine + "/V" + version + "__" + name + ".sql";
    }
  }

  private Migrator() {}

  /** Applies every pending migration and returns the schema version now in place. */
  static int migrate(Database db) {
    return db.write(
        "schema migration",
        c -> {
          db.lockForMigration(c);
          try (Statement s = c.createStatement()) {
            s.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT"
                    + " NOT NULL, applied_ms BIGINT NOT NULL)");
          }
          Set<Integer> applied = appliedVersions(c);
          int current = 0;
          for (Migration m : MIGRATIONS) {
            if (!applied.contains(m.version())) {
              apply(c, db.engine(), m);
            }
            current = m.version();
          }
          int newest = applied.stream().mapToInt(Integer::intValue).max().orElse(0);
          if (newest > current) {
            log.warn(
                "event=schema_newer_than_build store={} schemaVersion={} buildVersion={}",
                db.describe(),
                newest,
                current);
          }
          return Math.max(current, newest);
        });
  }

  private static Set<Integer> appliedVersions(Connection c) throws SQLException {
    Set<Integer> versions = new HashSet<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT version FROM schema_version")) {
      while (rs.next()) {
        versions.add(rs.getInt(1));
      }
    }
    return versions;
  }

  private static void apply(Connection c, String engine, Migration m) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String statement : statements(read(m.resource(engine)))) {
        s.execute(statement);
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO schema_version (version, name, applied_ms) VALUES (?, ?, ?)")) {
      ps.setInt(1, m.version());
      ps.setString(2, m.name());
      ps.setLong(3, System.currentTimeMillis());
      ps.executeUpdate();
    }
    log.info("event=schema_migrated engine={} version={} name={}", engine, m.version(), m.name());
  }

  /**
   * Splits a migration file into statements: drops comment lines, splits at a ';' ending a line.
   */
  static List<String> statements(String script) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : script.split("\n", -1)) {
      String trimmed = line.strip();
      if (trimmed.startsWith("--") || trimmed.isEmpty()) {
        continue;
      }
      if (trimmed.endsWith(";")) {
        current.append(trimmed, 0, trimmed.length() - 1);
        out.add(current.toString().strip());
        current.setLength(0);
      } else {
        current.append(trimmed).append('\n');
      }
    }
    if (!current.toString().isBlank()) {
      out.add(current.toString().strip());
    }
    return out;
  }

  private static String read(String resource) {
    try (InputStream in = Migrator.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("migration " + resource + " is missing from the build");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read migration " + resource, e);
    }
  }
}
