-- Veil schema, version 5, PostgreSQL: what administrators set per site for the v2 key endpoints
-- (its domain and app names, its participant types, its keyset's sharing permission). Names and
-- type lists are comma-separated; sharing_set false means the default permission (bidders may read
-- the keyset), true means exactly allowed_sites and allowed_types may. Same table as
-- db/sqlite/V5__site.sql, plus writer_xid for the change feed (see V3__multi_node.sql).
CREATE TABLE site (
  site_id       INTEGER PRIMARY KEY,
  domain_names  TEXT    NOT NULL,
  types         TEXT    NOT NULL,
  sharing_set   BOOLEAN NOT NULL,
  allowed_sites TEXT    NOT NULL,
  allowed_types TEXT    NOT NULL,
  updated_ms    BIGINT  NOT NULL,
  seq           BIGINT  NOT NULL UNIQUE,
  writer_xid    xid8    NOT NULL DEFAULT pg_current_xact_id()
);
CREATE TRIGGER site_writer_xid BEFORE INSERT OR UPDATE ON site
  FOR EACH ROW EXECUTE FUNCTION veil_stamp_writer_xid();
ALTER TABLE site ENABLE ALWAYS TRIGGER site_writer_xid;
CREATE INDEX site_writer_xid ON site (writer_xid);
