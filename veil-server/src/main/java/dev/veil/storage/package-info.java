/**
 * Persistence of every feature store on one database: the embedded engine (SQLite, a single file,
 * the default) or PostgreSQL (shared by many stateless nodes). Entry point: {@link
 * dev.veil.storage.Stores#open}.
 *
 * <h2>Layout</h2>
 *
 * <ol>
 *   <li>{@code StoreUrl} parses the location and keeps any password out of what is logged.
 *   <li>{@code SqliteDatabase} / {@code PostgresDatabase} ({@code Database}) own connections and
 *       transactions, allocate change sequence numbers and provide the job lock. That is all that
 *       differs between the engines.
 *   <li>{@code Migrator} applies {@code db/<engine>/V<n>__<name>.sql} at open, once, under a lock.
 *   <li>{@code JdbcKeyStore}, {@code JdbcSaltStore}, {@code JdbcOptOutStore}, {@code
 *       JdbcClientStore}, {@code JdbcMetaStore}, {@code JdbcDeductionStore}: plain SQL shared by both engines ({@code ON
 *       CONFLICT}, {@code RETURNING}), assembled by {@code JdbcStore}.
 * </ol>
 *
 * <h2>Change sequence</h2>
 *
 * Every row of {@code encryption_key}, {@code bucket_salt}, {@code opt_out} and {@code api_client}
 * carries a {@code seq} taken from one counter per store (SQLite: the {@code change_counter} row;
 * PostgreSQL: the {@code change_seq} sequence) inside the writing transaction; an update of a row
 * gives it a new seq. A node keeps the highest seq it has applied and asks for rows "after" it.
 * The {@code deduction} table has no seq: deductions are read from the store on every call.
 *
 * <p>Caveat on PostgreSQL: sequence values are taken before commit, and two transactions can commit
 * in the opposite order of their seqs. A poller that just read up to seq N may therefore miss a row
 * with a seq below N that commits a moment later. Pollers must re-read a small window below the
 * highest seq they have seen (or the rows of the last few seconds) and apply rows idempotently;
 * every row carries its full latest state, so applying one twice is harmless. On SQLite writes are
 * serialized and seqs commit in order.
 *
 * <h2>Rules</h2>
 *
 * <ul>
 *   <li>A write returns only once it is durable (SQLite WAL with {@code synchronous=FULL};
 *       PostgreSQL {@code synchronous_commit=on}).
 *   <li>Every JDBC failure surfaces as {@link dev.veil.common.StoreUnavailableException}, whose
 *       message names the operation and the store but no value.
 *   <li>Hashes, salts, keys, secrets and API-key digests are never logged.
 *   <li>Instants are stored as epoch milliseconds; byte strings as BLOB / BYTEA.
 *   <li>Migrations are append-only and written for both engines with the same tables and columns.
 * </ul>
 */
package dev.veil.storage;
