-- Veil schema, version 7, SQLite: opt-out webhooks (docs/spec.md 4.1). Same table and columns as
-- db/postgresql/V7__webhook.sql.
--
-- The outbox is the opt_out table itself: each webhook keeps a durable cursor over it,
-- (delivered_xid, delivered_seq), the position of the last opt-out its receiver acknowledged in
-- the order the webhook delivery reads opt_out (here seq order, delivered_xid always 0, on
-- PostgreSQL (writer_xid, seq)). Nothing is written per opt-out and webhook.
-- AUTOINCREMENT: a webhook id is never reused, also after its row is disabled.
CREATE TABLE webhook (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  client_id     BIGINT  NOT NULL,
  url           TEXT    NOT NULL,
  secret        BLOB    NOT NULL,
  created_ms    BIGINT  NOT NULL,
  disabled_ms   BIGINT,
  delivered_xid BIGINT  NOT NULL,
  delivered_seq BIGINT  NOT NULL,
  delivered_ms  BIGINT  NOT NULL
);
