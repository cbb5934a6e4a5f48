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
 *       transactions, allocate change sequence numbers, decide which rows a change-feed read
 *       returns, and provide the job lock. That is all that differs between the engines.
 *   <li>{@code Migrator} applies {@code db/<engine>/V<n>__<name>.sql} at open, once, under a lock.
 *   <li>{@code JdbcKeyStore}, {@code JdbcSaltStore}, {@code JdbcOptOutStore}, {@code
 *       JdbcClientStore}, {@code JdbcMetaStore}, {@code JdbcDeductionStore}: plain SQL shared by
 *       both engines ({@code ON CONFLICT}, {@code RETURNING}), assembled by {@code JdbcStore}. The
 *       four versioned tables describe themselves as a {@code ChangeTable}, whose one streaming
 *       loop serves every change-feed read.
 *   <li>{@code OutageBreaker}: PostgreSQL calls fail at once while the database is known to be
 *       down.
 * </ol>
 *
 * <h2>Change feed: how a node catches up, and why it never misses a row</h2>
 *
 * Every row of {@code encryption_key}, {@code bucket_salt}, {@code opt_out}, {@code api_client} and
 * {@code site} carries a {@code seq} taken from one counter per store (SQLite: the {@code
 * change_counter} row; PostgreSQL: the {@code change_seq} sequence) inside the writing transaction;
 * an update of a row gives it a new seq, and a row always holds its entity's full latest state.
 * Each node's services follow the five tables through {@link dev.veil.common.ChangeFeed}: a read
 * takes the cursor the previous read returned and delivers the rows changed since, at least once.
 * Applying a row twice is harmless (the opt-out index ignores a known hash; keys never change;
 * salts apply only a newer generation; a client or site row is its entity's state as of a read
 * later than every row applied before).
 *
 * <p><b>SQLite</b>: one writer at a time, so seqs become visible in increasing order; the cursor is
 * the highest seq read and a read asks for {@code seq > cursor}.
 *
 * <p><b>PostgreSQL</b>: {@code nextval} hands out seqs before commit, and two transactions can
 * commit in the opposite order of their seqs. A reader that polls "{@code seq >} highest seen" can
 * read seq 12 while seq 11 is still uncommitted and then skip 11 for ever; under concurrent writes
 * on several nodes this happens (a test in {@code PostgresStoreTest} counts dozens per run). So the
 * PostgreSQL cursor is not a seq but a transaction-id watermark:
 *
 * <ul>
 *   <li>Every insert and update stamps the row with the id of the writing transaction, {@code
 *       writer_xid = pg_current_xact_id()} (a trigger; migration V3). Ids are 64-bit ({@code
 *       xid8}), never wrap, and are assigned in increasing order.
 *   <li>A read runs in one {@code REPEATABLE READ, READ ONLY} transaction, so all of it sees one
 *       snapshot S. It returns the rows with {@code writer_xid >=} the previous cursor (all rows
 *       from the start), and the new cursor {@code pg_snapshot_xmin(S)}: the oldest transaction id
 *       still running when S was taken. Every transaction with a smaller id had ended, committed
 *       (and then visible in S) or rolled back.
 * </ul>
 *
 * <p>Why no committed row is missed: take a row state written by transaction T, and the first read
 * whose snapshot S shows T committed. Every earlier read R (snapshot S_R) returned cursor {@code
 * xmin(S_R)}; T had not committed in S_R, so T was either running in S_R ({@code T >= xmin(S_R)})
 * or had no id yet, in which case its id, assigned later, is at least the next id of S_R, which is
 * at least {@code xmin(S_R)}. So every cursor handed out before our read is at most T, in
 * particular the one our read starts from, and our read ({@code writer_xid >= cursor}, T visible in
 * S) delivers the row. If a later transaction overwrote the row meanwhile, that later state is
 * delivered instead, by the same argument. The argument needs no clock and no bound on how long a
 * transaction stays open: a node frozen mid-transaction for minutes (SIGSTOP) holds the watermark
 * back, and its rows are delivered when it commits.
 *
 * <p>Cost: a read re-delivers the rows of transactions that were still running at the previous read
 * and, briefly, rows committed just before it; an index on {@code writer_xid} keeps a read
 * proportional to what changed. A long-running transaction that writes anywhere in the same
 * PostgreSQL cluster (another database's too) holds the watermark back, so reads re-deliver
 * everything written since it began until it ends: slower, never wrong. Rows written before
 * migration V3 carry {@code writer_xid = 0} and are read by the full first read of every node.
 * Requires PostgreSQL 13 or newer ({@code xid8}, {@code pg_current_snapshot}); checked at open.
 *
 * <h2>Jobs run once per period, whoever runs them</h2>
 *
 * The job lock ({@code PostgresJobLock}: a session advisory lock on a connection of its own,
 * released by the server when the holder's session ends; {@code LocalJobLock} on SQLite) only keeps
 * nodes from doing the same work at the same time. What makes a job happen at most once is the
 * stored state: a key names its predecessor and {@code (site_id, predecessor_id)} is unique; a salt
 * rotation to generation g applies only to a bucket at g - 1; a scheduled salt run inserts its
 * period into {@code salt_rotation_run} (primary key) in the same transaction as its rotations. A
 * node that resumes after a pause with an old view, or two nodes that both believe they hold the
 * lock, therefore cannot rotate anything twice.
 *
 * <h2>Bounded calls (PostgreSQL)</h2>
 *
 * A call made for a request runs under the request's {@link dev.veil.common.Deadline} ({@code
 * db.timeout} from its arrival): it does not start once that has passed, waits for a pooled
 * connection only as long as leaves time for the pool's check of it, and {@code DeadlineWatchdog}
 * closes its connection when the deadline passes, the one thing that ends a statement on a frozen
 * server (it answers neither the statement, nor its {@code statement_timeout}, nor a cancel
 * request). Other calls (start, catch-up, jobs, rotations by hand) are bounded per step: waiting
 * for a pooled connection and each statement ({@code statement_timeout}) by {@link
 * dev.veil.storage.StoreSettings#timeout()}, a silent network by the socket timeout 10 s later.
 * Connecting is bounded by the same timeout. After a call fails because the database cannot be
 * reached, {@code OutageBreaker} fails further calls at once and lets one call per second through
 * to probe; so during an outage a write answers 503 / code 1 in milliseconds and requests never
 * queue behind the pool. Sessions end transactions left idle for a minute and send TCP keepalives,
 * so a frozen or vanished node cannot hold row locks or the job lock for ever.
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
 *   <li>Migrations are append-only and written for both engines with the same tables and columns;
 *       the one exception is PostgreSQL's bookkeeping column {@code writer_xid}.
 * </ul>
 */
package dev.veil.storage;
