-- Veil schema, version 8, SQLite: the audit trail (docs/operators.md). Same table and columns as
-- db/postgresql/V8__audit.sql.
--
-- Append-only: Veil has no statement that updates or deletes a row, and the triggers below refuse
-- one from anywhere else. AUTOINCREMENT: an id is never reused.
CREATE TABLE audit_event (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  at_ms      BIGINT  NOT NULL,
  actor_id   BIGINT  NOT NULL,
  actor_name TEXT    NOT NULL,
  action     TEXT    NOT NULL,
  target     TEXT    NOT NULL,
  details    TEXT    NOT NULL,
  reason     TEXT    NOT NULL
);

CREATE INDEX audit_event_actor ON audit_event (actor_id, id);
CREATE INDEX audit_event_at ON audit_event (at_ms);

CREATE TRIGGER audit_event_no_update BEFORE UPDATE ON audit_event BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
CREATE TRIGGER audit_event_no_delete BEFORE DELETE ON audit_event BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
