-- Veil schema, version 4, SQLite: each API client's secret, the key of its UID2 v2 envelopes
-- (32 bytes). NULL for clients stored before this version until a node's start gives them one.
-- Same column as db/postgresql/V4__client_secret.sql.
ALTER TABLE api_client ADD COLUMN secret BLOB;
