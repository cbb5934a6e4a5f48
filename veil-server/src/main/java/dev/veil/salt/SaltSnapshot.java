package dev.veil.salt;

import dev.veil.core.crypto.Sha256;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.stream.IntStream;

/**
 * An immutable view of every bucket's salt state, published by {@link SaltService}.
 *
 * <p>Design note. A bucket's salt is never stored in the database: it is {@code SHA-256(seed ||
 * index || generation)}, so the store holds only generation and effective time of rotated buckets.
 * In memory the snapshot keeps, per bucket, the generation and effective time (12 bytes), the salt
 * itself (32 bytes) and the bucket id (12 ASCII bytes): 56 MiB for 2^20 buckets, computed once at
 * start (about 2^21 SHA-256, a few hundred milliseconds) so that mapping an identity costs no hash
 * beyond its own two. A rotation copies the arrays and recomputes only the rotated buckets' salts;
 * bucket ids never change and are shared by all snapshots. The rotation index holds the indexes of
 * buckets rotated at least once, sorted by effective time, then index. Buckets still at generation 0 share the store's
 * creation time, which precedes every rotation, so "buckets updated after T" is either all
 * generation-0 buckets followed by the whole rotation index (T before creation) or a suffix of the
 * rotation index found by binary search. Bucket ids are the first 9 bytes of {@code SHA-256(bucket
 * id secret || index)} in base64url (12 characters): opaque, stable, not revealing the index.
 */
public final class SaltSnapshot {
  /** Largest supported bucket count is 2^INDEX_BITS. */
  static final int INDEX_BITS = 29;

  private static final int SALT_BYTES = 32;
  private static final int ID_CHARS = 12;

  private final SaltSystem system;
  private final int[] generation;
  private final long[] effectiveMs;
  private final byte[] salts;
  private final byte[] bucketIds;
  private final int[] rotated;
  private final int unrotatedCount;

  private SaltSnapshot(SaltSystem system, int[] generation, long[] effectiveMs, byte[] salts, byte[] bucketIds) {
    this.system = system;
    this.generation = generation;
    this.effectiveMs = effectiveMs;
    this.salts = salts;
    this.bucketIds = bucketIds;
    this.rotated = sortedRotated(generation, effectiveMs);
    this.unrotatedCount = generation.length - rotated.length;
  }

  /** Every bucket at generation 0, effective since the store's creation. */
  public static SaltSnapshot initial(SaltSystem system) {
    int n = system.bucketCount();
    long[] effective = new long[n];
    Arrays.fill(effective, system.created().toEpochMilli());
    int[] generation = new int[n];
    byte[] salts = new byte[n * SALT_BYTES];
    byte[] ids = new byte[n * ID_CHARS];
    // 2^21 SHA-256 at start: spread over the cores in chunks (each writes its own array ranges).
    int chunk = 1 << 14;
    IntStream.range(0, (n + chunk - 1) / chunk).parallel().forEach(c -> {
      for (int i = c * chunk, end = Math.min(n, i + chunk); i < end; i++) {
        System.arraycopy(computeSalt(system, i, 0), 0, salts, i * SALT_BYTES, SALT_BYTES);
        writeBucketId(system, i, ids, i * ID_CHARS);
      }
    });
    return new SaltSnapshot(system, generation, effective, salts, ids);
  }

  /** A new snapshot with the given bucket states applied (later entries win). */
  public SaltSnapshot with(Collection<BucketSalt> changes) {
    if (changes.isEmpty()) {
      return this;
    }
    int[] gen = generation.clone();
    long[] eff = effectiveMs.clone();
    byte[] newSalts = salts.clone();
    for (BucketSalt change : changes) {
      int i = change.bucketIndex();
      if (i < 0 || i >= gen.length) {
        continue; // a row for a bucket outside this store's range cannot come from this store
      }
      gen[i] = change.generation();
      eff[i] = change.effectiveAt().toEpochMilli();
      System.arraycopy(computeSalt(system, i, gen[i]), 0, newSalts, i * SALT_BYTES, SALT_BYTES);
    }
    return new SaltSnapshot(system, gen, eff, newSalts, bucketIds);
  }

  private static int[] sortedRotated(int[] gen, long[] eff) {
    // Effective times are whole seconds (< 2^34) and indexes < 2^29, so (seconds, index) packs into
    // one long whose natural order is the order we want; a primitive sort of 2^20 longs is fast.
    int count = 0;
    for (int g : gen) {
      if (g > 0) {
        count++;
      }
    }
    long[] packed = new long[count];
    int k = 0;
    for (int i = 0; i < gen.length; i++) {
      if (gen[i] > 0) {
        packed[k++] = (Math.floorDiv(eff[i], 1000L) << INDEX_BITS) | i;
      }
    }
    Arrays.sort(packed);
    int[] out = new int[count];
    for (int i = 0; i < count; i++) {
      out[i] = (int) (packed[i] & ((1L << INDEX_BITS) - 1));
    }
    return out;
  }

  public SaltSystem system() {
    return system;
  }

  public int bucketCount() {
    return generation.length;
  }

  /** The bucket of a 32-byte first-level hash: its first 8 bytes, as an unsigned number, mod the count. */
  public int bucketOf(byte[] firstLevelHash) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (firstLevelHash[i] & 0xff);
    }
    return (int) Long.remainderUnsigned(v, generation.length);
  }

  /** The current 32-byte salt of a bucket (a copy). */
  public byte[] salt(int bucketIndex) {
    return Arrays.copyOfRange(salts, bucketIndex * SALT_BYTES, (bucketIndex + 1) * SALT_BYTES);
  }

  /** SHA-256({@code prefix} || salt of the bucket), without copying the salt (the mapping hot path). */
  public byte[] hashWithSalt(byte[] prefix, int bucketIndex) {
    return Sha256.digest(prefix, salts, bucketIndex * SALT_BYTES, SALT_BYTES);
  }

  private static byte[] computeSalt(SaltSystem system, int bucketIndex, int generation) {
    byte[] input = new byte[8];
    putInt(input, 0, bucketIndex);
    putInt(input, 4, generation);
    return Sha256.digest(system.saltSeed(), input);
  }

  public int generation(int bucketIndex) {
    return generation[bucketIndex];
  }

  public Instant effectiveAt(int bucketIndex) {
    return Instant.ofEpochMilli(effectiveMs[bucketIndex]);
  }

  public long effectiveAtMillis(int bucketIndex) {
    return effectiveMs[bucketIndex];
  }

  /** The opaque id of a bucket. */
  public String bucketId(int bucketIndex) {
    return new String(bucketIds, bucketIndex * ID_CHARS, ID_CHARS, StandardCharsets.US_ASCII);
  }

  static String bucketIdOf(SaltSystem system, int bucketIndex) {
    byte[] id = new byte[ID_CHARS];
    writeBucketId(system, bucketIndex, id, 0);
    return new String(id, StandardCharsets.US_ASCII);
  }

  private static final byte[] BASE64URL =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.US_ASCII);

  /** Base64url (no padding) of the first 9 bytes of SHA-256(secret || index): 12 characters. */
  private static void writeBucketId(SaltSystem system, int bucketIndex, byte[] out, int off) {
    byte[] input = new byte[4];
    putInt(input, 0, bucketIndex);
    byte[] d = Sha256.digest(system.bucketIdSecret(), input);
    for (int g = 0; g < 3; g++) {
      int v = (d[g * 3] & 0xff) << 16 | (d[g * 3 + 1] & 0xff) << 8 | (d[g * 3 + 2] & 0xff);
      out[off + g * 4] = BASE64URL[v >>> 18];
      out[off + g * 4 + 1] = BASE64URL[(v >>> 12) & 63];
      out[off + g * 4 + 2] = BASE64URL[(v >>> 6) & 63];
      out[off + g * 4 + 3] = BASE64URL[v & 63];
    }
  }

  /** Number of buckets rotated at least once. */
  public int rotatedCount() {
    return rotated.length;
  }

  /** Buckets whose salt took effect strictly after {@code since}, ordered by effective time, then index. */
  public PrimitiveIterator.OfInt updatedAfter(Instant since) {
    long sinceMs = since.toEpochMilli();
    boolean includeUnrotated = system.created().toEpochMilli() > sinceMs;
    int from = includeUnrotated ? 0 : firstRotatedAfter(sinceMs);
    return new PrimitiveIterator.OfInt() {
      private int nextUnrotated = includeUnrotated ? advanceUnrotated(0) : generation.length;
      private int nextRotated = from;

      @Override
      public boolean hasNext() {
        return nextUnrotated < generation.length || nextRotated < rotated.length;
      }

      @Override
      public int nextInt() {
        if (nextUnrotated < generation.length) {
          int result = nextUnrotated;
          nextUnrotated = advanceUnrotated(nextUnrotated + 1);
          return result;
        }
        if (nextRotated < rotated.length) {
          return rotated[nextRotated++];
        }
        throw new NoSuchElementException();
      }
    };
  }

  /** Buckets ordered oldest salt first (generation 0 by index, then by effective time). */
  public PrimitiveIterator.OfInt oldestFirst() {
    return updatedAfter(Instant.ofEpochMilli(Long.MIN_VALUE / 2));
  }

  int unrotatedCount() {
    return unrotatedCount;
  }

  private int advanceUnrotated(int from) {
    int i = from;
    while (i < generation.length && generation[i] != 0) {
      i++;
    }
    return i;
  }

  private int firstRotatedAfter(long sinceMs) {
    int lo = 0;
    int hi = rotated.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (effectiveMs[rotated[mid]] <= sinceMs) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static void putInt(byte[] b, int off, int v) {
    b[off] = (byte) (v >>> 24);
    b[off + 1] = (byte) (v >>> 16);
    b[off + 2] = (byte) (v >>> 8);
    b[off + 3] = (byte) v;
  }
}
