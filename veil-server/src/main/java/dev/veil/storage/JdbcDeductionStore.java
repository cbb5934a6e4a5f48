package dev.veil.storage;

import dev.veil.audit.AuditLog;
import dev.veil.deduction.CloseReason;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionCreateException;
import dev.veil.deduction.DeductionEvent;
import dev.veil.deduction.DeductionFilter;
import dev.veil.deduction.DeductionStatus;
import dev.veil.deduction.DeductionStore;
import dev.veil.deduction.EventPosition;
import dev.veil.deduction.NewDeduction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * {@link DeductionStore} on table {@code deduction} (migrations V2 and V9) and its change log,
 * {@code deduction_event} (V9), appended in the transaction of each change.
 *
 * <ul>
 *   <li>insert: {@code INSERT … ON CONFLICT (request_id) DO NOTHING RETURNING id}; on a conflict (a
 *       retry, possibly racing on another node) the row that holds the request id is read back.
 *       PostgreSQL makes the second insert wait for the first to commit, and the read that follows
 *       sees it;
 *   <li>change: the row is read with {@code FOR UPDATE} on PostgreSQL (the embedded store has one
 *       writer at a time), so the decision is made on the state no other transaction can change
 *       before this one commits; the update also names the version it read.
 * </ul>
 *
 * <p>Log order. Embedded store: {@code seq}, which commits in order. PostgreSQL: {@code
 * (writer_xid, seq)}, reading only entries whose {@code writer_xid} is below {@code
 * pg_snapshot_xmin} of the reading statement's snapshot, as webhook delivery reads the opt-out log
 * ({@link JdbcWebhookStore}): every transaction with a smaller id has ended and every later one
 * gets a larger id, so the order only grows at its end and a watcher resuming from a position
 * misses nothing, whichever node it reads from.
 */
final class JdbcDeductionStore implements DeductionStore {
  private static final String COLUMNS =
      "id, title, description, pay_method_id, status, created_ms, updated_ms, version,"
          + " valid_until_ms, close_reason";
  private static final String INSERT =
      "INSERT INTO deduction (title, description, pay_method_id, status, request_id, created_ms,"
          + " updated_ms, version, valid_until_ms, close_reason)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, 0)"
          + " ON CONFLICT (request_id) DO NOTHING RETURNING id";
  private static final String SELECT_BY_ID = "SELECT " + COLUMNS + " FROM deduction WHERE id = ?";
  private static final String SELECT_BY_REQUEST_ID =
      "SELECT " + COLUMNS + " FROM deduction WHERE request_id = ?";
  private static final String UPDATE =
      "UPDATE deduction SET status = ?, valid_until_ms = ?, close_reason = ?, version = ?,"
          + " updated_ms = ? WHERE id = ? AND version = ?";
  private static final String DUE =
      "SELECT id FROM deduction WHERE status = 0 AND valid_until_ms <= ? ORDER BY id LIMIT ?";
  private static final String EVENT_COLUMNS =
      "deduction_id, title, description, pay_method_id, status, created_ms, updated_ms, version,"
          + " valid_until_ms, close_reason, kind, at_ms, actor";
  private static final String INSERT_EVENT =
      "INSERT INTO deduction_event ("
          + EVENT_COLUMNS
          + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String SQLITE_POSITION = "0, seq";

  /**
   * The position as text and number. The text is named {@code writer_xid_text}: an output column
   * named {@code writer_xid} (the default name of {@code writer_xid::text}) would be what a bare
   * {@code ORDER BY writer_xid} sorts by, in text order, where 1000 comes before 999.
   */
  private static final String POSTGRES_POSITION = "writer_xid::text AS writer_xid_text, seq";

  private static final String SQLITE_EVENTS_AFTER =
      "SELECT "
          + EVENT_COLUMNS
          + ", 0, seq FROM deduction_event WHERE seq > ? ORDER BY seq LIMIT ?";
  private static final String POSTGRES_EVENTS_AFTER =
      "SELECT "
          + EVENT_COLUMNS
          + ", "
          + POSTGRES_POSITION
          + " FROM deduction_event WHERE (writer_xid, seq) > (CAST(? AS xid8), ?)"
          + " AND writer_xid < pg_snapshot_xmin(pg_current_snapshot())"
          + " ORDER BY deduction_event.writer_xid, deduction_event.seq LIMIT ?";

  private final Database db;
  private final boolean postgres;

  JdbcDeductionStore(Database db) {
    this.db = db;
    this.postgres = db.engine().equals("postgresql");
  }

  @Override
  public Inserted insert(NewDeduction draft, Instant now) {
    long millis = now.toEpochMilli();
    return db.write(
        "create deduction",
        c -> {
          Optional<Long> id = insertRow(c, draft, millis);
          if (id.isPresent()) {
            if (id.get() > Deduction.MAX_ID) {
              // Thrown inside the transaction, so the row is rolled back.
              throw new DeductionCreateException(
                  "every deduction id up to " + Deduction.MAX_ID + " is taken");
            }
            AuditLog.assignedId(id.get());
            Instant at = Instant.ofEpochMilli(millis);
            Deduction created =
                Deduction.created(
                    id.get(),
                    draft.title(),
                    draft.desc(),
                    draft.payMethodId(),
                    at,
                    draft.validUntil().map(v -> Instant.ofEpochMilli(v.toEpochMilli())));
            appendEvent(c, DeductionEvent.Kind.CREATED, created);
            return new Inserted(created, true);
          }
          String requestId =
              draft.requestId().orElseThrow(() -> new SQLException("insert returned no id"));
          Deduction earlier = selectByRequestId(c, requestId);
          AuditLog.assignedId(earlier.id());
          return new Inserted(earlier, false);
        });
  }

  private static Optional<Long> insertRow(Connection c, NewDeduction draft, long millis)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setString(1, draft.title());
      ps.setString(2, draft.desc());
      ps.setLong(3, draft.payMethodId());
      ps.setInt(4, DeductionStatus.NORMAL.code());
      if (draft.requestId().isPresent()) {
        ps.setString(5, draft.requestId().get());
      } else {
        ps.setNull(5, Types.VARCHAR);
      }
      ps.setLong(6, millis);
      ps.setLong(7, millis);
      setWindow(ps, 8, draft.validUntil());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    }
  }

  private static void setWindow(PreparedStatement ps, int index, Optional<Instant> validUntil)
      throws SQLException {
    if (validUntil.isPresent()) {
      ps.setLong(index, validUntil.get().toEpochMilli());
    } else {
      ps.setNull(index, Types.BIGINT);
    }
  }

  private static Deduction selectByRequestId(Connection c, String requestId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SELECT_BY_REQUEST_ID)) {
      ps.setString(1, requestId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("the deduction holding a conflicting request id vanished");
        }
        return deduction(rs, 1);
      }
    }
  }

  @Override
  public Optional<Changed> change(long id, UnaryOperator<Deduction> decide, Instant now) {
    Instant at = Instant.ofEpochMilli(now.toEpochMilli());
    return db.write(
        "change deduction",
        c -> {
          Optional<Deduction> current =
              select(c, SELECT_BY_ID + (postgres ? " FOR UPDATE" : ""), id);
          if (current.isEmpty()) {
            AuditLog.nothingChanged();
            return Optional.empty();
          }
          Deduction before = current.get();
          Deduction decided = decide.apply(before);
          if (decided.sameStateAs(before)) {
            return Optional.of(new Changed(before, false));
          }
          Deduction after = before.nextVersion(decided, at);
          try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
            ps.setInt(1, after.status().code());
            setWindow(ps, 2, after.validUntil());
            ps.setInt(3, after.closeReason().code());
            ps.setLong(4, after.version());
            ps.setLong(5, at.toEpochMilli());
            ps.setLong(6, id);
            ps.setLong(7, before.version());
            if (ps.executeUpdate() != 1) {
              throw new SQLException("deduction " + id + " changed while locked");
            }
          }
          appendEvent(c, DeductionEvent.Kind.between(before, after), after);
          return Optional.of(new Changed(after, true));
        });
  }

  private static void appendEvent(Connection c, DeductionEvent.Kind kind, Deduction d)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_EVENT)) {
      ps.setLong(1, d.id());
      ps.setString(2, d.title());
      ps.setString(3, d.desc());
      ps.setLong(4, d.payMethodId());
      ps.setInt(5, d.status().code());
      ps.setLong(6, d.created().toEpochMilli());
      ps.setLong(7, d.updated().toEpochMilli());
      ps.setLong(8, d.version());
      setWindow(ps, 9, d.validUntil());
      ps.setInt(10, d.closeReason().code());
      ps.setInt(11, kind.code());
      ps.setLong(12, d.updated().toEpochMilli());
      ps.setString(13, AuditLog.actorName().orElse(""));
      ps.executeUpdate();
    }
  }

  @Override
  public List<Deduction> list(DeductionFilter filter, long afterId, long limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative: " + limit);
    }
    StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM deduction WHERE id > ?");
    List<Long> params = new ArrayList<>();
    params.add(afterId);
    if (!filter.statuses().isEmpty()) {
      sql.append(" AND status IN (").append(placeholders(filter.statuses().size())).append(')');
      filter.statuses().stream().map(s -> (long) s.code()).sorted().forEach(params::add);
    }
    if (!filter.payMethodIds().isEmpty()) {
      sql.append(" AND pay_method_id IN (")
          .append(placeholders(filter.payMethodIds().size()))
          .append(')');
      filter.payMethodIds().stream().sorted().forEach(params::add);
    }
    filter
        .createdFrom()
        .ifPresent(
            from -> {
              sql.append(" AND created_ms >= ?");
              params.add(from.toEpochMilli());
            });
    filter
        .createdBefore()
        .ifPresent(
            before -> {
              sql.append(" AND created_ms < ?");
              params.add(before.toEpochMilli());
            });
    sql.append(" ORDER BY id");
    if (limit > 0) {
      sql.append(" LIMIT ?");
      params.add(limit);
    }
    return db.read(
        "list deductions",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < params.size(); i++) {
              ps.setLong(i + 1, params.get(i));
            }
            List<Deduction> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                rows.add(deduction(rs, 1));
              }
            }
            return rows;
          }
        });
  }

  private static String placeholders(int count) {
    return String.join(", ", java.util.Collections.nCopies(count, "?"));
  }

  @Override
  public Optional<Deduction> get(long id) {
    return db.read("read deduction", c -> select(c, SELECT_BY_ID, id));
  }

  private static Optional<Deduction> select(Connection c, String sql, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(deduction(rs, 1)) : Optional.empty();
      }
    }
  }

  @Override
  public List<Long> dueToExpire(Instant now, int limit) {
    return db.read(
        "find deductions to expire",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(DUE)) {
            ps.setLong(1, now.toEpochMilli());
            ps.setInt(2, limit);
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                ids.add(rs.getLong(1));
              }
            }
            return ids;
          }
        });
  }

  @Override
  public List<DeductionEvent> history(long id) {
    String sql =
        "SELECT "
            + EVENT_COLUMNS
            + ", "
            + (postgres ? POSTGRES_POSITION : SQLITE_POSITION)
            + " FROM deduction_event WHERE deduction_id = ? ORDER BY seq";
    return db.read(
        "read deduction history",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, id);
            return events(ps);
          }
        });
  }

  @Override
  public List<DeductionEvent> eventsAfter(EventPosition after, int limit) {
    return db.read(
        "read deduction changes",
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(postgres ? POSTGRES_EVENTS_AFTER : SQLITE_EVENTS_AFTER)) {
            int i = 1;
            if (postgres) {
              ps.setString(i++, Long.toString(after.xid()));
            }
            ps.setLong(i++, after.seq());
            ps.setInt(i, limit);
            return events(ps);
          }
        });
  }

  private static List<DeductionEvent> events(PreparedStatement ps) throws SQLException {
    List<DeductionEvent> events = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        int kind = rs.getInt(11);
        events.add(
            new DeductionEvent(
                new EventPosition(Long.parseLong(rs.getString(14)), rs.getLong(15)),
                DeductionEvent.Kind.ofCode(kind)
                    .orElseThrow(() -> new SQLException("deduction event of unknown kind " + kind)),
                deduction(rs, 1),
                Instant.ofEpochMilli(rs.getLong(12)),
                rs.getString(13)));
      }
    }
    return events;
  }

  /** The record in the ten columns of {@link #COLUMNS}' order from {@code first} on. */
  private static Deduction deduction(ResultSet rs, int first) throws SQLException {
    int code = rs.getInt(first + 4);
    DeductionStatus status =
        DeductionStatus.ofCode(code)
            .orElseThrow(() -> new SQLException("deduction row with unknown status " + code));
    long validUntil = rs.getLong(first + 8);
    Optional<Instant> window =
        rs.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(validUntil));
    int reason = rs.getInt(first + 9);
    CloseReason closeReason =
        CloseReason.ofCode(reason)
            .orElseThrow(
                () -> new SQLException("deduction row with unknown close reason " + reason));
    return new Deduction(
        rs.getLong(first),
        rs.getString(first + 1),
        rs.getString(first + 2),
        rs.getLong(first + 3),
        status,
        Instant.ofEpochMilli(rs.getLong(first + 5)),
        Instant.ofEpochMilli(rs.getLong(first + 6)),
        rs.getLong(first + 7),
        window,
        closeReason);
  }
}
