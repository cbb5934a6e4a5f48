package dev.veil.core.crypto;

import java.util.function.Supplier;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;

/**
 * One thread's ciphers, one per key, at most {@code capacity}, the least recently used replaced
 * first. Keys are compared by identity: every {@code EncryptionKey} holds one {@link SecretKeySpec}
 * for its life, and {@code SecretKeySpec.hashCode()} allocates (it lower-cases the algorithm name)
 * on each call, which a map keyed by the spec would pay three times per token generate. Two specs
 * with the same bytes only cost a second cipher. Not thread-safe.
 *
 * <p>A key that is not cached takes over the least recently used key's {@link Cipher}, which the
 * caller's next {@code init} re-keys (a key expansion, about 1.6 µs), instead of a new one (about 5
 * µs): so a thread creates at most {@code capacity} ciphers in its life, however many keys it
 * meets. That matters where keys outnumber the slots, as with one secret per API client.
 */
final class CipherCache {
  private final SecretKeySpec[] keys;
  private final Cipher[] ciphers;
  private final long[] lastUse;
  private final Supplier<Cipher> factory;
  private long clock;

  CipherCache(int capacity, Supplier<Cipher> factory) {
    this.keys = new SecretKeySpec[capacity];
    this.ciphers = new Cipher[capacity];
    this.lastUse = new long[capacity];
    this.factory = factory;
  }

  /**
   * The cipher of {@code key} (not initialised for it: callers always {@code init} before use),
   * created only while the cache has an empty slot.
   */
  @SuppressWarnings("ReferenceEquality") // keyed by the key object itself, which the ring holds
  Cipher get(SecretKeySpec key) {
    int victim = 0;
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] == key) {
        lastUse[i] = ++clock;
        return ciphers[i];
      }
      if (lastUse[i] < lastUse[victim]) {
        victim = i;
      }
    }
    keys[victim] = key;
    if (ciphers[victim] == null) {
      ciphers[victim] = factory.get();
    }
    lastUse[victim] = ++clock;
    return ciphers[victim];
  }
}
