package dev.veil.common;

import java.util.Optional;

/**
 * Named system values written once at bootstrap (the first-level salt, the salt seed, the bucket id
 * secret, the store creation time). Job state lives with its feature (salt rotation runs are
 * recorded by the salt store). Values are opaque bytes. Implementations are thread-safe; every
 * write is durable on return.
 */
public interface MetaStore {
  Optional<byte[]> get(String name);

  /**
   * Stores {@code value} under {@code name} unless a value is present, and returns the value now
   * stored: the given one, or the one another node wrote first.
   */
  byte[] putIfAbsent(String name, byte[] value);

  /**
   * Replaces the value of {@code name} with {@code update} only if it currently equals {@code
   * expected} ({@code null} meaning absent). Returns whether the value was replaced.
   */
  boolean compareAndSet(String name, byte[] expected, byte[] update);
}
