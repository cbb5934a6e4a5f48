package dev.veil.salt;

import dev.veil.core.crypto.Sha256;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;

/**
 * An immutable view of every bucket's salt state, published by {@link SaltService}.
 *
 * <p>Design note. A bucket's salt is never stored in the database: it is {@code SHA-256(seed ||
 * index || generation)} ({@link SaltDerivation}), so the store holds only generation and effective
 * time of rotated buckets. In memory the snapshot keeps, per bucket, the generation and effective
 * time (12 bytes), the refresh time (4 bytes: seconds after the store's creation) and a 64-byte
 * record with the salt itself, the bucket id, a ready flag for each, and a copy of the state a v3
 * map answer reads, so that it reads one cache line ({@link BucketRecords}): 80 bytes, 80 MiB for
 * 2^20 buckets. The previous salt is the salt of generation - 1, read only by a v3 map answer, for
 * buckets rotated within {@link #PREVIOUS_ID_WINDOW}: {@link PreviousSalts} keeps it for the
 * buckets rotated within the window of the latest rotation, derived on first use (about 12 bytes a
 * bucket more under the default rotation, at most 37; see there). Salts and bucket ids are computed
 * on first use: computing all of them at start took 2^21 SHA-256 on a cold JIT, most of the time to
 * ready, while a bucket's first use costs one SHA-256 more (about 0.1 µs) and every later one
 * nothing. A rotation copies the arrays, keeping the salts already computed except the rotated
 * buckets', and every bucket id (ids never change). The rotation index holds the indexes of buckets
 * rotated at least once, sorted by effective time, then index. Buckets still at generation 0 share
 * the store's creation time, which precedes every rotation, so "buckets updated after T" is either
 * all generation-0 buckets followed by the whole rotation index (T before creation) or a suffix of
 * the rotation index found by binary search. Bucket ids are the first 9 bytes of {@code
 * SHA-256(bucket id secret || index)} in base64url (12 characters): opaque, stable, not revealing
 * the index.
 */
public final class SaltSnapshot {
  /** Largest supported bucket count is 2^INDEX_BITS. */
  static final int INDEX_BITS = 29;

  private static final int SALT_BYTES = SaltDerivation.SALT_BYTES;

  /** Length of a bucket id. */
  public static final int BUCKET_ID_CHARS = SaltDerivation.ID_CHARS;

  private static final int ID_CHARS = BUCKET_ID_CHARS;

  /** How long after a rotation the id under the previous salt is still given (docs/spec.md 5). */
  public static final Duration PREVIOUS_ID_WINDOW = Duration.ofDays(90);

  private static final long PREVIOUS_ID_WINDOW_MS = PREVIOUS_ID_WINDOW.toMillis();

  private static final long REFRESH_PERIOD_S = BucketSalt.REFRESH_PERIOD.toSeconds();

  private final SaltSystem system;
  private final long createdS;
  private final int[] generation;
  private final long[] effectiveMs;
  private final int[] refreshAfterCreation;
  private final SaltDerivation derivation;
  private final BucketRecords records;
  private final int[] rotated;
  private final int unrotatedCount;
  private final PreviousSalts previousSalts;

  private SaltSnapshot(
      SaltSystem system,
      int[] generation,
      long[] effectiveMs,
      int[] refreshAfterCreation,
      SaltDerivation derivation,
      BucketRecords records) {
    this.system = system;
    this.createdS = system.created().getEpochSecond();
    this.generation = generation;
    this.effectiveMs = effectiveMs;
    this.refreshAfterCreation = refreshAfterCreation;
    this.derivation = derivation;
    this.records = records;
    this.rotated = sortedRotated(generation, effectiveMs);
    this.unrotatedCount = generation.length - rotated.length;
    this.previousSalts =
        PreviousSalts.of(
            generation.length,
            rotated,
            effectiveMs,
            PREVIOUS_ID_WINDOW.toMillis(),
            previousSaltOf(derivation, generation));
    for (int i = 0; i < generation.length; i++) {
      records.putState(
          i, generation[i] > 0, effectiveMs[i], refreshAfterCreation[i], previousSalts.slot(i));
    }
  }

  /**
   * Every bucket at generation 0, effective since the store's creation. The first refresh times are
   * spread over the second refresh period after creation, by bucket index, so that collectors do
   * not re-map everything on one day.
   */
  public static SaltSnapshot initial(SaltSystem system) {
    int n = system.bucketCount();
    long[] effective = new long[n];
    Arrays.fill(effective, system.created().toEpochMilli());
    int[] generation = new int[n];
    int[] refresh = new int[n];
    for (int i = 0; i < n; i++) {
      refresh[i] = (int) (REFRESH_PERIOD_S + REFRESH_PERIOD_S * i / n);
    }
    SaltDerivation derivation = new SaltDerivation(system);
    return new SaltSnapshot(
        system,
        generation,
        effective,
        refresh,
        derivation,
        new BucketRecords(n, saltOf(derivation, generation), derivation::bucketId));
  }

  /** The salt of a bucket at its generation in {@code generation}. */
  private static BucketRecords.Deriver saltOf(SaltDerivation derivation, int[] generation) {
    return (bucket, out, off) -> derivation.salt(bucket, generation[bucket], out, off);
  }

  /** A new snapshot with the given bucket states applied (later entries win). */
  public SaltSnapshot with(Collection<BucketSalt> changes) {
    if (changes.isEmpty()) {
      return this;
    }
    int[] gen = generation.clone();
    long[] eff = effectiveMs.clone();
    int[] refresh = refreshAfterCreation.clone();
    long createdS = system.created().getEpochSecond();
    boolean[] changed = new boolean[gen.length];
    for (BucketSalt change : changes) {
      int i = change.bucketIndex();
      if (i < 0 || i >= gen.length) {
        continue; // a row for a bucket outside this store's range cannot come from this store
      }
      gen[i] = change.generation();
      eff[i] = change.effectiveAt().toEpochMilli();
      refresh[i] = (int) clamp(change.refreshFrom().getEpochSecond() - createdS);
      changed[i] = true;
    }
    return new SaltSnapshot(
        system,
        gen,
        eff,
        refresh,
        derivation,
        BucketRecords.copyOf(records, saltOf(derivation, gen), changed));
  }

  /** The salt of a bucket at the generation before its one in {@code generation}. */
  private static BucketRecords.Deriver previousSaltOf(SaltDerivation derivation, int[] generation) {
    return (bucket, out, off) -> derivation.salt(bucket, generation[bucket] - 1, out, off);
  }

  private static long clamp(long secondsAfterCreation) {
    return Math.max(0, Math.min(Integer.MAX_VALUE, secondsAfterCreation));
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

  /**
   * The bucket of a 32-byte first-level hash: its first 8 bytes, as an unsigned number, mod the
   * count.
   */
  public int bucketOf(byte[] firstLevelHash) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (firstLevelHash[i] & 0xff);
    }
    return (int) Long.remainderUnsigned(v, generation.length);
  }

  /** The current 32-byte salt of a bucket (a copy). */
  public byte[] salt(int bucketIndex) {
    int off = records.salt(bucketIndex);
    return Arrays.copyOfRange(records.records(), off, off + SALT_BYTES);
  }

  /**
   * SHA-256({@code prefix} || salt of the bucket), without copying the salt (the mapping hot path).
   */
  public byte[] hashWithSalt(byte[] prefix, int bucketIndex) {
    return Sha256.digest(prefix, records.records(), records.salt(bucketIndex), SALT_BYTES);
  }

  /** Like {@link #hashWithSalt}, into {@code out[off, off+32)}: allocates nothing. */
  public void hashWithSaltInto(byte[] prefix, int bucketIndex, byte[] out, int off) {
    Sha256.digestInto(prefix, records.records(), records.salt(bucketIndex), SALT_BYTES, out, off);
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

  /**
   * When collectors should map the bucket's identities again, in epoch seconds: the bucket's
   * refresh time, moved on by whole {@link BucketSalt#REFRESH_PERIOD}s until it is after {@code
   * nowMs} (docs/spec.md 5).
   */
  public long refreshFromSeconds(int bucketIndex, long nowMs) {
    long refresh = createdS + records.refreshAfterCreation(bucketIndex);
    long nowS = Math.floorDiv(nowMs, 1000L);
    if (refresh > nowS) {
      return refresh;
    }
    return refresh + ((nowS - refresh) / REFRESH_PERIOD_S + 1) * REFRESH_PERIOD_S;
  }

  /**
   * Whether the bucket's current salt replaced another within {@link #PREVIOUS_ID_WINDOW} before
   * {@code nowMs}: then a v3 map answer gives the id under the previous salt.
   */
  public boolean hasRecentPrevious(int bucketIndex, long nowMs) {
    return records.rotated(bucketIndex)
        && records.effectiveMs(bucketIndex) > nowMs - PREVIOUS_ID_WINDOW_MS;
  }

  /**
   * SHA-256({@code prefix} || the bucket's previous salt) into {@code out[off, off+32)}; the bucket
   * must have been rotated at least once. The previous salt is the one {@link PreviousSalts} keeps,
   * or derived for this call if it keeps none for the bucket.
   */
  public void hashWithPreviousSaltInto(byte[] prefix, int bucketIndex, byte[] out, int off) {
    if (!records.rotated(bucketIndex)) {
      throw new IllegalStateException("bucket was never rotated");
    }
    int kept = previousSalts.saltAt(records.previousSlot(bucketIndex), bucketIndex);
    if (kept >= 0) {
      Sha256.digestInto(prefix, previousSalts.records(), kept, SALT_BYTES, out, off);
      return;
    }
    byte[] previous = new byte[SALT_BYTES];
    derivation.salt(bucketIndex, generation[bucketIndex] - 1, previous, 0);
    Sha256.digestInto(prefix, previous, 0, SALT_BYTES, out, off);
  }

  /** The opaque id of a bucket. */
  public String bucketId(int bucketIndex) {
    return new String(
        records.records(), records.id(bucketIndex), ID_CHARS, StandardCharsets.US_ASCII);
  }

  /**
   * Copies the {@value #BUCKET_ID_CHARS} ASCII characters of a bucket's id to {@code out} at {@code
   * off}.
   */
  public void copyBucketId(int bucketIndex, byte[] out, int off) {
    System.arraycopy(records.records(), records.id(bucketIndex), out, off, ID_CHARS);
  }

  /** Bytes held for previous salts ({@link PreviousSalts}), for memory figures and tests. */
  long previousSaltBytes() {
    return previousSalts.bytes();
  }

  /** Number of buckets rotated at least once. */
  public int rotatedCount() {
    return rotated.length;
  }

  /**
   * Buckets whose salt took effect strictly after {@code since}, ordered by effective time, then
   * index.
   */
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
}
