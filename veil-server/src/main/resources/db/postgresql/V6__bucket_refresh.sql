-- Veil schema, version 6, PostgreSQL: when data collectors should map a rotated bucket's identities
-- again (the r of /v3/identity/map, docs/spec.md 5), as epoch milliseconds. Rows written before
-- this version have none: readers take the salt's effective time plus the refresh period (30 days).
-- The previous salt needs no column: it is derived from generation - 1, like the current one.
-- Same column as db/sqlite/V6__bucket_refresh.sql.
ALTER TABLE bucket_salt ADD COLUMN refresh_ms BIGINT;
