package dev.veil.sdk.internal.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * A seeded 64-bit hash of an identifier (kind and value bytes) for the in-memory index. It is
 * never stored: each process draws its own seed, so input crafted to collide in one run does not
 * collide in another. A match is always confirmed against the stored value, so collisions cost a
 * read, never an entry.
 */
class Fingerprint {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long M1 = 0x9E3779B97F4A7C15L;
  private static final long M2 = 0xC2B2AE3D27D4EB4FL;
  private static final long M3 = 0x165667B19E3779F9L;

  private final long seed;

  Fingerprint(long seed) {
    this.seed = seed;
  }

  static Fingerprint random() {
    return new Fingerprint(new SecureRandom().nextLong());
  }

  /** Tests: every identifier gets the same hash, so every lookup must be settled by the stored value. */
  static Fingerprint constant() {
    return new Fingerprint(0) {
      @Override
      long of(int kind, byte[] b, int off, int len) {
        return 0x5EED_0000_0000_0001L;
      }
    };
  }

  long of(int kind, byte[] b, int off, int len) {
    long h = seed ^ (len * M1) ^ ((long) kind << 56);
    int i = off;
    int end = off + len;
    for (; i + 8 <= end; i += 8) {
      h = mix(h ^ (long) LONGS.get(b, i));
    }
    long tail = 0;
    for (int shift = 0; i < end; i++, shift += 8) {
      tail |= (b[i] & 0xFFL) << shift;
    }
    h = mix(h ^ tail);
    h ^= h >>> 33;
    h *= M3;
    return h ^ (h >>> 29);
  }

  private static long mix(long h) {
    long x = h * M1;
    x = Long.rotateLeft(x, 31);
    return x * M2;
  }
}
