package dev.veil.common;

import java.util.function.Consumer;

/**
 * The changes of one versioned table (keys, salts, opt-outs, clients), read by every node to keep
 * its in-memory snapshot current with what other nodes wrote.
 *
 * <p>Contract: a read delivers the latest state of every row whose write committed after the read
 * that returned {@code since} (from {@link ChangeCursor#START}: every row), in ascending sequence
 * order within the read. Delivery is <em>at least once</em>: a row delivered by one read may come
 * again in a later read, so callers apply rows idempotently (each carries its full latest state).
 * No committed row is ever skipped, also when writes of several nodes commit in another order than
 * their sequence numbers. Rows stream to the sink without being held in memory together.
 */
public interface ChangeFeed<T> {
  /**
   * Streams the changes since {@code since} to {@code sink} and returns the cursor for the next
   * read ({@code since} itself, or another value, when nothing changed).
   *
   * @throws StoreUnavailableException if the store cannot be read; the cursor to use stays {@code
   *     since} (rows already delivered are delivered again by the retry)
   * @throws RuntimeException whatever {@code sink} throws, unchanged
   */
  ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<T>> sink);
}
