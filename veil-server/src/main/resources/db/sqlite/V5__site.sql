-- Veil schema, version 5, SQLite: what administrators set per site for the v2 key endpoints (its
-- domain and app names, its participant types, its keyset's sharing permission). Names and type
-- lists are comma-separated; sharing_set false means the default permission (bidders may read the
-- keyset), true means exactly allowed_sites and allowed_types may. Same table as
-- db/postgresql/V5__site.sql.
CREATE TABLE site (
  site_id       INTEGER PRIMARY KEY,
  domain_names  TEXT    NOT NULL,
  types         TEXT    NOT NULL,
  sharing_set   BOOLEAN NOT NULL,
  allowed_sites TEXT    NOT NULL,
  allowed_types TEXT    NOT NULL,
  updated_ms    BIGINT  NOT NULL,
  seq           BIGINT  NOT NULL UNIQUE
);
