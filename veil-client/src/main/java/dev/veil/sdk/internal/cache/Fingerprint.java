package dev.veil.sdk.internal.cache;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * A seeded 64-bit hash of an identifier (kind and value bytes) for the in-memory index. It is never
 * stored: each process draws its own seed, so input crafted to collide in one run does not collide
 * in another. A match is always confirmed against the stored value, so collisions cost a read,
 * never an entry.
 */
class Fingerprint {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long M1 = 0x9E3779B97F4A7C15L;
  private static final long M2 = 0xC2B2AE3D27D4EB4FL;
  private static final long M3 = 0x165667B19E3779F9L;

  private final long seed;

  Fingerprint(long seed) {
    this.seed = seed;
  }

  static Fingerprint random() {
    return new Fingerprint(randomSeed());
  }

  /**
   * Eight bytes of the kernel's random source where there is one to read (Linux, macOS): the same
   * source {@link SecureRandom} reads, without its provider machinery, which costs a short run (a
   * {@code veil map} of a small file) 20 to 30 ms of start-up. Elsewhere {@link SecureRandom}.
   */
  static long randomSeed() {
    try (InputStream in = Files.newInputStream(Path.of("/dev/urandom"))) {
      byte[] b = in.readNBytes(8);
      if (b.length == 8) {
        return (long) LONGS.get(b, 0);
      }
    } catch (IOException
        | InvalidPathException
        | UnsupportedOperationException
        | SecurityException e) {
      // no such device here: the portable source below
    }
    return new SecureRandom().nextLong();
  }

  /**
   * Tests: every identifier gets the same hash, so every lookup must be settled by the stored
   * value.
   */
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
