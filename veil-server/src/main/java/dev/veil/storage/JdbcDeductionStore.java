package dev.veil.storage;

import dev.veil.audit.AuditLog;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionCreateException;
import dev.veil.deduction.DeductionStatus;
import dev.veil.deduction.DeductionStore;
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

/**
 * {@link DeductionStore} on table {@code deduction} (migration V2). Each write is a single
 * statement, so it is atomic on both engines without explicit row locks:
 *
 * <ul>
 *   <li>insert: {@code INSERT … ON CONFLICT (request_id) DO NOTHING RETURNING id}; on a conflict (a
 *       retry, possibly racing on another node) the row that holds the request id is read back.
 *       PostgreSQL makes the second insert wait for the first to commit, and the read that follows
 *       sees it;
 *   <li>status change: {@code UPDATE … RETURNING}, which always takes the row's write lock, so the
 *       row it returns is the state this call left, even while other calls change the same row.
 * </ul>
 */
final class JdbcDeductionStore implements DeductionStore {
  private static final String COLUMNS =
      "id, title, description, pay_method_id, status, created_ms, updated_ms";
  private static final String INSERT =
      "INSERT INTO deduction"
          + " (title, description, pay_method_id, status, request_id, created_ms, updated_ms)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING RETURNING id";
  private static final String SELECT_BY_ID = "SELECT " + COLUMNS + " FROM deduction WHERE id = ?";
  private static final String SELECT_BY_REQUEST_ID =
      "SELECT " + COLUMNS + " FROM deduction WHERE request_id = ?";
  private static final String SET_STATUS =
      "UPDATE deduction SET status = ?,"
          + " updated_ms = CASE WHEN status = ? THEN updated_ms ELSE ? END"
          + " WHERE id = ? RETURNING "
          + COLUMNS;
  private static final String LIST =
      "SELECT " + COLUMNS + " FROM deduction WHERE status = ? AND id > ? ORDER BY id";

  private final Database db;

  JdbcDeductionStore(Database db) {
    this.db = db;
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
            return new Inserted(
                new Deduction(
                    id.get(),
                    draft.title(),
                    draft.desc(),
                    draft.payMethodId(),
                    DeductionStatus.NORMAL,
                    at,
                    at),
                true);
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
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    }
  }

  private static Deduction selectByRequestId(Connection c, String requestId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SELECT_BY_REQUEST_ID)) {
      ps.setString(1, requestId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("the deduction holding a conflicting request id vanished");
        }
        return deduction(rs);
      }
    }
  }

  @Override
  public Optional<Deduction> setStatus(long id, DeductionStatus status, Instant now) {
    return db.write(
        "change deduction status",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(SET_STATUS)) {
            ps.setInt(1, status.code());
            ps.setInt(2, status.code());
            ps.setLong(3, now.toEpochMilli());
            ps.setLong(4, id);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                return Optional.of(deduction(rs));
              }
              AuditLog.nothingChanged();
              return Optional.empty();
            }
          }
        });
  }

  @Override
  public List<Deduction> list(DeductionStatus status, long afterId, long limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative: " + limit);
    }
    return db.read(
        "list deductions",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(limit == 0 ? LIST : LIST + " LIMIT ?")) {
            ps.setInt(1, status.code());
            ps.setLong(2, afterId);
            if (limit > 0) {
              ps.setLong(3, limit);
            }
            List<Deduction> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                rows.add(deduction(rs));
              }
            }
            return rows;
          }
        });
  }

  @Override
  public Optional<Deduction> get(long id) {
    return db.read(
        "read deduction",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(SELECT_BY_ID)) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? Optional.of(deduction(rs)) : Optional.empty();
            }
          }
        });
  }

  private static Deduction deduction(ResultSet rs) throws SQLException {
    int code = rs.getInt(5);
    DeductionStatus status =
        DeductionStatus.ofCode(code)
            .orElseThrow(() -> new SQLException("deduction row with unknown status " + code));
    return new Deduction(
        rs.getLong(1),
        rs.getString(2),
        rs.getString(3),
        rs.getLong(4),
        status,
        Instant.ofEpochMilli(rs.getLong(6)),
        Instant.ofEpochMilli(rs.getLong(7)));
  }
}
