package dev.veil.storage;

import dev.veil.audit.AuditLog;
import dev.veil.webhook.LogPosition;
import dev.veil.webhook.LoggedOptOut;
import dev.veil.webhook.Webhook;
import dev.veil.webhook.WebhookSecret;
import dev.veil.webhook.WebhookStore;
import dev.veil.webhook.WebhookUrl;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link WebhookStore} on table {@code webhook} (migration V7) and the opt-out log on {@code
 * opt_out}, which is the webhooks' outbox: each webhook's row holds the position of the last
 * opt-out its receiver acknowledged, so an opt-out costs no write per webhook.
 *
 * <p>Delivery order. Embedded store: {@code seq}, which commits in order (one writer at a time; the
 * seq is taken in the writing transaction). PostgreSQL: {@code (writer_xid, seq)}, reading only
 * rows whose {@code writer_xid} is below {@code pg_snapshot_xmin} of the reading statement's
 * snapshot. Every transaction with a smaller id has ended, and every later transaction gets a
 * larger id, so no row can ever appear before the end of what was read: the order only grows at its
 * end, and a cursor never skips a row that commits later (the seq alone would: seqs are handed out
 * before commit, see the package documentation). The price: an opt-out waits for the transactions
 * that were running when it committed to end, normally milliseconds; a long-running write
 * transaction anywhere on the cluster delays delivery until it ends, never loses a row.
 */
final class JdbcWebhookStore implements WebhookStore {
  private static final String COLUMNS = "id, client_id, url, created_ms";
  private static final String INSERT =
      "INSERT INTO webhook (client_id, url, secret, created_ms, delivered_xid, delivered_seq,"
          + " delivered_ms) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id";
  private static final String LIST =
      "SELECT " + COLUMNS + " FROM webhook WHERE disabled_ms IS NULL ORDER BY id";
  private static final String ACTIVE =
      "SELECT "
          + COLUMNS
          + ", secret, delivered_xid, delivered_seq FROM webhook WHERE disabled_ms IS NULL"
          + " ORDER BY id";
  private static final String DISABLE =
      "UPDATE webhook SET disabled_ms = ? WHERE id = ? AND disabled_ms IS NULL";
  private static final String ADVANCE =
      "UPDATE webhook SET delivered_xid = ?, delivered_seq = ?, delivered_ms = ?"
          + " WHERE id = ? AND disabled_ms IS NULL"
          + " AND (delivered_xid < ? OR (delivered_xid = ? AND delivered_seq < ?))";
  private static final String SQLITE_END = "SELECT COALESCE(MAX(seq), 0) FROM opt_out";
  private static final String SQLITE_PAGE =
      "SELECT first_level_hash, opted_out_ms, 0, seq FROM opt_out WHERE seq > ?"
          + " ORDER BY seq LIMIT ?";
  private static final String POSTGRES_END = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text";

  /**
   * Sorted by the column, not by the text of the position (which is named so that a bare {@code
   * writer_xid} cannot mean it: in text order 1000 comes before 999, and a page would skip rows).
   */
  private static final String POSTGRES_PAGE =
      "SELECT first_level_hash, opted_out_ms, writer_xid::text AS writer_xid_text, seq"
          + " FROM opt_out"
          + " WHERE (writer_xid, seq) > (CAST(? AS xid8), ?)"
          + " AND writer_xid < pg_snapshot_xmin(pg_current_snapshot())"
          + " ORDER BY opt_out.writer_xid, opt_out.seq LIMIT ?";

  private final Database db;
  private final boolean postgres;

  JdbcWebhookStore(Database db) {
    this.db = db;
    this.postgres = db.engine().equals("postgresql");
  }

  @Override
  public Webhook insert(long clientId, WebhookUrl url, WebhookSecret secret, Instant createdAt) {
    long createdMs = createdAt.toEpochMilli();
    return db.write(
        "register webhook",
        c -> {
          LogPosition end = end(c);
          try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setLong(1, clientId);
            ps.setString(2, url.text());
            ps.setBytes(3, secret.bytes());
            ps.setLong(4, createdMs);
            ps.setLong(5, end.xid());
            ps.setLong(6, end.seq());
            ps.setLong(7, createdMs);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                throw new SQLException("insert returned no id");
              }
              AuditLog.assignedId(rs.getLong(1));
              return new Webhook(rs.getLong(1), clientId, url, Instant.ofEpochMilli(createdMs));
            }
          }
        });
  }

  /** Where the log ends now: a new webhook's cursor. */
  private LogPosition end(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(postgres ? POSTGRES_END : SQLITE_END)) {
      rs.next();
      return postgres
          ? new LogPosition(Long.parseLong(rs.getString(1)), 0)
          : new LogPosition(0, rs.getLong(1));
    }
  }

  @Override
  public List<Webhook> list() {
    return db.read(
        "list webhooks",
        c -> {
          List<Webhook> hooks = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(LIST);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              hooks.add(webhook(rs));
            }
          }
          return hooks;
        });
  }

  @Override
  public List<Registered> active() {
    return db.read(
        "read webhooks",
        c -> {
          List<Registered> hooks = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(ACTIVE);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              hooks.add(
                  new Registered(
                      webhook(rs),
                      WebhookSecret.of(rs.getBytes(5)),
                      new LogPosition(rs.getLong(6), rs.getLong(7))));
            }
          }
          return hooks;
        });
  }

  private static Webhook webhook(ResultSet rs) throws SQLException {
    return new Webhook(
        rs.getLong(1),
        rs.getLong(2),
        WebhookUrl.parse(rs.getString(3)),
        Instant.ofEpochMilli(rs.getLong(4)));
  }

  @Override
  public boolean disable(long id, Instant at) {
    return db.write(
        "delete webhook",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(DISABLE)) {
            ps.setLong(1, at.toEpochMilli());
            ps.setLong(2, id);
            boolean disabled = ps.executeUpdate() == 1;
            if (!disabled) {
              AuditLog.nothingChanged();
            }
            return disabled;
          }
        });
  }

  @Override
  public boolean advance(long id, LogPosition to, Instant at) {
    return db.write(
        "advance webhook cursor",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(ADVANCE)) {
            ps.setLong(1, to.xid());
            ps.setLong(2, to.seq());
            ps.setLong(3, at.toEpochMilli());
            ps.setLong(4, id);
            ps.setLong(5, to.xid());
            ps.setLong(6, to.xid());
            ps.setLong(7, to.seq());
            return ps.executeUpdate() == 1;
          }
        });
  }

  @Override
  public List<LoggedOptOut> optOutsAfter(LogPosition after, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive");
    }
    return db.read(
        "read opt-outs for webhooks",
        c -> {
          List<LoggedOptOut> page = new ArrayList<>(Math.min(limit, 1024));
          try (PreparedStatement ps = c.prepareStatement(postgres ? POSTGRES_PAGE : SQLITE_PAGE)) {
            int i = 1;
            if (postgres) {
              ps.setString(i++, Long.toString(after.xid()));
            }
            ps.setLong(i++, after.seq());
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                page.add(
                    new LoggedOptOut(
                        new LogPosition(Long.parseLong(rs.getString(3)), rs.getLong(4)),
                        rs.getBytes(1),
                        Instant.ofEpochMilli(rs.getLong(2))));
              }
            }
          }
          return page;
        });
  }
}
