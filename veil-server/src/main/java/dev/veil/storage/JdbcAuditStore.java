package dev.veil.storage;

import dev.veil.audit.AuditEvent;
import dev.veil.audit.AuditFilter;
import dev.veil.audit.AuditStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link AuditStore} on table {@code audit_event} (migration V8): inserts and selects, nothing
 * else; the table's triggers refuse updates and deletes from anywhere. Listing is newest first by
 * id; on PostgreSQL ids come from one sequence for every node, taken as the row is inserted.
 */
final class JdbcAuditStore implements AuditStore {
  private static final String INSERT =
      "INSERT INTO audit_event (at_ms, actor_id, actor_name, action, target, details, reason)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id";
  private static final String COLUMNS =
      "id, at_ms, actor_id, actor_name, action, target, details, reason";

  private final Database db;

  JdbcAuditStore(Database db) {
    this.db = db;
  }

  @Override
  public AuditEvent append(AuditEvent event) {
    return db.write("append audit event", c -> insert(c, event));
  }

  @Override
  public void appendIn(Connection connection, AuditEvent event) throws SQLException {
    insert(connection, event);
  }

  private static AuditEvent insert(Connection c, AuditEvent e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setLong(1, e.at().toEpochMilli());
      ps.setLong(2, e.actorId());
      ps.setString(3, e.actorName());
      ps.setString(4, e.action());
      ps.setString(5, e.target());
      ps.setString(6, e.details());
      ps.setString(7, e.reason());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new AuditEvent(
            rs.getLong(1),
            e.at(),
            e.actorId(),
            e.actorName(),
            e.action(),
            e.target(),
            e.details(),
            e.reason());
      }
    }
  }

  @Override
  public List<AuditEvent> list(AuditFilter filter, int limit) {
    StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM audit_event WHERE 1 = 1");
    List<Object> args = new ArrayList<>();
    if (filter.actorId() != null) {
      sql.append(" AND actor_id = ?");
      args.add(filter.actorId());
    }
    if (filter.action() != null) {
      sql.append(" AND action = ?");
      args.add(filter.action());
    }
    if (filter.target() != null) {
      sql.append(" AND target = ?");
      args.add(filter.target());
    }
    if (filter.from() != null) {
      sql.append(" AND at_ms >= ?");
      args.add(filter.from().toEpochMilli());
    }
    if (filter.until() != null) {
      sql.append(" AND at_ms < ?");
      args.add(filter.until().toEpochMilli());
    }
    if (filter.beforeId() != null) {
      sql.append(" AND id < ?");
      args.add(filter.beforeId());
    }
    sql.append(" ORDER BY id DESC LIMIT ?");
    args.add(limit);
    return db.read(
        "list audit events",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < args.size(); i++) {
              ps.setObject(i + 1, args.get(i));
            }
            List<AuditEvent> events = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                events.add(
                    new AuditEvent(
                        rs.getLong(1),
                        Instant.ofEpochMilli(rs.getLong(2)),
                        rs.getLong(3),
                        rs.getString(4),
                        rs.getString(5),
                        rs.getString(6),
                        rs.getString(7),
                        rs.getString(8)));
              }
            }
            return events;
          }
        });
  }
}
