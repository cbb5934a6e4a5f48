-- Veil schema, version 3, PostgreSQL: catch-up that never misses a row, and jobs that never run
-- twice. Same tables and columns as db/sqlite/V3__multi_node.sql, plus writer_xid, which only
-- PostgreSQL needs (see dev.veil.storage.package-info, "Change feed").

-- Which transaction wrote each row's current state. Rows written before this version get 0, which
-- every reader has read already or reads from the start. A trigger stamps every later insert and
-- update (ENABLE ALWAYS: also rows applied by logical replication); the column default covers an
-- insert with triggers disabled.
CREATE FUNCTION veil_stamp_writer_xid() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN NEW.writer_xid := pg_current_xact_id(); RETURN NEW; END';

ALTER TABLE encryption_key ADD COLUMN writer_xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE encryption_key ALTER COLUMN writer_xid SET DEFAULT pg_current_xact_id();
CREATE TRIGGER encryption_key_writer_xid BEFORE INSERT OR UPDATE ON encryption_key
  FOR EACH ROW EXECUTE FUNCTION veil_stamp_writer_xid();
ALTER TABLE encryption_key ENABLE ALWAYS TRIGGER encryption_key_writer_xid;
CREATE INDEX encryption_key_writer_xid ON encryption_key (writer_xid);

ALTER TABLE bucket_salt ADD COLUMN writer_xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE bucket_salt ALTER COLUMN writer_xid SET DEFAULT pg_current_xact_id();
CREATE TRIGGER bucket_salt_writer_xid BEFORE INSERT OR UPDATE ON bucket_salt
  FOR EACH ROW EXECUTE FUNCTION veil_stamp_writer_xid();
ALTER TABLE bucket_salt ENABLE ALWAYS TRIGGER bucket_salt_writer_xid;
CREATE INDEX bucket_salt_writer_xid ON bucket_salt (writer_xid);

ALTER TABLE opt_out ADD COLUMN writer_xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE opt_out ALTER COLUMN writer_xid SET DEFAULT pg_current_xact_id();
CREATE TRIGGER opt_out_writer_xid BEFORE INSERT OR UPDATE ON opt_out
  FOR EACH ROW EXECUTE FUNCTION veil_stamp_writer_xid();
ALTER TABLE opt_out ENABLE ALWAYS TRIGGER opt_out_writer_xid;
CREATE INDEX opt_out_writer_xid ON opt_out (writer_xid);

ALTER TABLE api_client ADD COLUMN writer_xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE api_client ALTER COLUMN writer_xid SET DEFAULT pg_current_xact_id();
CREATE TRIGGER api_client_writer_xid BEFORE INSERT OR UPDATE ON api_client
  FOR EACH ROW EXECUTE FUNCTION veil_stamp_writer_xid();
ALTER TABLE api_client ENABLE ALWAYS TRIGGER api_client_writer_xid;
CREATE INDEX api_client_writer_xid ON api_client (writer_xid);

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
  SELECT (EXTRACT(EPOCH FROM convert_from(value, 'UTF8')::date) * 1000)::BIGINT, 0, 0
  FROM meta WHERE name = 'salt.rotation.last_day';
