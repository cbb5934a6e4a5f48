-- Veil schema, version 3, SQLite: jobs that never run twice. Same tables and columns as
-- db/postgresql/V3__multi_node.sql except writer_xid, which only PostgreSQL needs (one writer at a
-- time commits sequence numbers in order here; see dev.veil.storage.package-info).

-- Each key names the key it succeeds in its keyset (0: the keyset's first key; NULL for keys from
-- before this version, which never conflict). One successor per key: a rotation decided twice
-- creates one key.
ALTER TABLE encryption_key ADD COLUMN predecessor_id INTEGER;
CREATE UNIQUE INDEX encryption_key_successor ON encryption_key (site_id, predecessor_id);

-- One row per period whose scheduled salt rotation ran; the primary key makes a period run at most
-- once. The day the older schema kept in meta becomes the first run.
CREATE TABLE salt_rotation_run (
  period_start_ms BIGINT  PRIMARY KEY,
  buckets         INTEGER NOT NULL,
  rotated_ms      BIGINT  NOT NULL
);
INSERT INTO salt_rotation_run (period_start_ms, buckets, rotated_ms)
  SELECT CAST(strftime('%s', CAST(value AS TEXT)) AS INTEGER) * 1000, 0, 0
  FROM meta WHERE name = 'salt.rotation.last_day';
