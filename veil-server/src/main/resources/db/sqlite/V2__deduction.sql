-- Veil schema, version 2, embedded engine (SQLite): deduction services (docs/spec.md 6.1).
-- Same table and columns as db/postgresql/V2__deduction.sql. Deductions are read from the store
-- on every call, not polled by nodes, so the table has no seq column.

-- AUTOINCREMENT: an id is never reused. desc is a reserved word, so the column is description.
-- request_id is the caller's idempotency key; NULL when none was sent (NULLs never conflict).
CREATE TABLE deduction (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  title         TEXT    NOT NULL,
  description   TEXT    NOT NULL,
  pay_method_id BIGINT  NOT NULL CHECK (pay_method_id BETWEEN 0 AND 4294967295),
  status        INTEGER NOT NULL CHECK (status IN (0, 1)),
  request_id    TEXT    UNIQUE,
  created_ms    BIGINT  NOT NULL,
  updated_ms    BIGINT  NOT NULL
);
-- The list methods read one status in id order.
CREATE INDEX deduction_status_id ON deduction (status, id);
