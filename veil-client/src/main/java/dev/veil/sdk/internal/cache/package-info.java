/**
 * The mapping cache's store: an append-only file of checksummed frames and what is kept in memory
 * to use it. Not API.
 *
 * <ul>
 *   <li>{@link dev.veil.sdk.internal.cache.MappingStore}: the store's operations (add, pending
 *       batches, storing answers, marks, reads, export, compaction), its locks and its design.
 *   <li>{@code LogFile}: the file, frames, forcing to disk (group commit) and crash recovery (the
 *       design note on crash safety is there); {@code Frame} and {@code Records}: the record
 *       layouts; {@code LogReader}: reading records at positions through cached windows.
 *   <li>{@code StoreState}: the in-memory state rebuilt from the records at open; {@code
 *       EntryTable} (positions per entry), {@code IdentifierIndex} and {@code Fingerprint} (entries
 *       by identifier).
 *   <li>{@code Export} (walks in entry order, following a run; CSV rows from the records' bytes),
 *       {@link dev.veil.sdk.internal.cache.RotationLoad} and {@code StaleMarking} (a poll's marks),
 *       {@code Compaction} (rewriting the file with the current records), {@code CacheLock} (one
 *       writer per file).
 * </ul>
 */
package dev.veil.sdk.internal.cache;
