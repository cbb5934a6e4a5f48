package dev.veil.common;

/**
 * A stored value with the change sequence number the store gave it. Sequence numbers grow with
 * every write across all tables of one store, so a reader that remembers the highest number it has
 * seen can ask for exactly the changes after it.
 */
public record Versioned<T>(long seq, T value) {}
