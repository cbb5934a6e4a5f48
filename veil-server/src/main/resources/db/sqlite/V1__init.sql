-- Veil schema, version 1, embedded engine (SQLite).
-- Same tables and columns as db/postgresql/V1__init.sql; only the types and the id generators
-- differ. Instants are epoch milliseconds, byte strings BLOBs. Statements end with ';' at the end
-- of a line and contain no other ';'.

-- The change counter stands in for PostgreSQL's change_seq sequence: one row, bumped in the same
-- transaction as every write to a versioned table below.
CREATE TABLE change_counter (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  value BIGINT  NOT NULL
);
INSERT INTO change_counter (id, value) VALUES (1, 0);

CREATE TABLE meta (
  name  TEXT PRIMARY KEY,
  value BLOB NOT NULL
);

-- AUTOINCREMENT: a key id is never reused, even after a row is deleted.
CREATE TABLE encryption_key (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  site_id      INTEGER NOT NULL,
  created_ms   BIGINT  NOT NULL,
  activates_ms BIGINT  NOT NULL,
  expires_ms   BIGINT  NOT NULL,
  secret       BLOB    NOT NULL,
  seq          BIGINT  NOT NULL UNIQUE
);

CREATE TABLE bucket_salt (
  bucket_index INTEGER PRIMARY KEY,
  generation   INTEGER NOT NULL,
  effective_ms BIGINT  NOT NULL,
  seq          BIGINT  NOT NULL UNIQUE
);

-- seq is the rowid here, so streaming in seq order reads the table in storage order; an opt-out
-- is written once and never updated, so its seq never changes.
CREATE TABLE opt_out (
  seq              INTEGER PRIMARY KEY,
  first_level_hash BLOB    NOT NULL UNIQUE,
  opted_out_ms     BIGINT  NOT NULL
);

CREATE TABLE api_client (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  name       TEXT    NOT NULL,
  site_id    INTEGER NOT NULL,
  roles      TEXT    NOT NULL,
  enabled    BOOLEAN NOT NULL,
  created_ms BIGINT  NOT NULL,
  key_id     TEXT    NOT NULL,
  key_salt   BLOB    NOT NULL,
  key_hash   BLOB    NOT NULL,
  seq        BIGINT  NOT NULL UNIQUE
);
CREATE INDEX api_client_key_id ON api_client (key_id);
