package dev.veil.common;

/**
 * A stored value with the change sequence number the store gave its latest write. Sequence numbers
 * are unique and grow with every write across all tables of one store, in the order they are taken;
 * on PostgreSQL writes may become visible in another order, which is why readers follow a {@link
 * ChangeFeed} with a {@link ChangeCursor} rather than "the highest number seen".
 */
public record Versioned<T>(long seq, T value) {}
