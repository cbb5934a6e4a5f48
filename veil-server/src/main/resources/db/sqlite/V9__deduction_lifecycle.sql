-- Veil schema, version 9, SQLite: the deduction lifecycle (docs/spec.md 6.1): a version for
-- optimistic concurrency, an optional validity window, why a record was closed, and the change log
-- that GetDeductionHistory and WatchDeductions read. Same columns as
-- db/postgresql/V9__deduction_lifecycle.sql, except writer_xid, which only PostgreSQL needs.
--
-- version starts at 1 and grows by one with every change. valid_until_ms is NULL when the record
-- has no validity window. close_reason: 0 none (NORMAL), 1 manual (CloseDeduction), 2 scheduled
-- (its window ended); records closed before this version were closed by hand.
ALTER TABLE deduction ADD COLUMN version BIGINT NOT NULL DEFAULT 1;
ALTER TABLE deduction ADD COLUMN valid_until_ms BIGINT;
ALTER TABLE deduction ADD COLUMN close_reason INTEGER NOT NULL DEFAULT 0 CHECK (close_reason IN (0, 1, 2));
UPDATE deduction SET close_reason = 1 WHERE status = 1;
-- The expiry job reads the open records whose window has ended.
CREATE INDEX deduction_due ON deduction (status, valid_until_ms);
-- Lists filtered by pay method read one pay method in id order.
CREATE INDEX deduction_pay_method_id ON deduction (pay_method_id, id);

-- One row per change of a deduction, with the record's state after it; appended in the
-- transaction of the change, never updated or deleted. seq orders the log (one writer at a time,
-- so seq order is commit order). kind: 1 created, 2 opened, 3 closed, 4 expired (scheduled),
-- 5 updated (the validity window of an open record changed). actor is the acting client's name, or
-- the job's. Records from before this version get one row each, telling their state at the
-- upgrade (kind 1 for an open record, 3 for a closed one).
CREATE TABLE deduction_event (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  deduction_id   BIGINT  NOT NULL,
  kind           INTEGER NOT NULL,
  at_ms          BIGINT  NOT NULL,
  actor          TEXT    NOT NULL,
  title          TEXT    NOT NULL,
  description    TEXT    NOT NULL,
  pay_method_id  BIGINT  NOT NULL,
  status         INTEGER NOT NULL,
  version        BIGINT  NOT NULL,
  valid_until_ms BIGINT,
  close_reason   INTEGER NOT NULL,
  created_ms     BIGINT  NOT NULL,
  updated_ms     BIGINT  NOT NULL
);
CREATE INDEX deduction_event_deduction ON deduction_event (deduction_id, seq);
INSERT INTO deduction_event (deduction_id, kind, at_ms, actor, title, description, pay_method_id, status, version, valid_until_ms, close_reason, created_ms, updated_ms) SELECT id, CASE status WHEN 0 THEN 1 ELSE 3 END, updated_ms, '', title, description, pay_method_id, status, version, valid_until_ms, close_reason, created_ms, updated_ms FROM deduction ORDER BY id;
CREATE TRIGGER deduction_event_no_update BEFORE UPDATE ON deduction_event BEGIN SELECT RAISE(ABORT, 'the deduction change log is append-only'); END;
CREATE TRIGGER deduction_event_no_delete BEFORE DELETE ON deduction_event BEGIN SELECT RAISE(ABORT, 'the deduction change log is append-only'); END;
