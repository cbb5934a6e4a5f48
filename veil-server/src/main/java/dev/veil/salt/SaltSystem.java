package dev.veil.salt;

import dev.veil.common.MetaStore;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;

/**
 * The fixed parameters of a store's identity space, created once at the first start and never
 * changed: bucket count, creation time (when the initial salts took effect), and three secrets
 * (first-level salt, salt seed, bucket id secret). Every node reads the same values from the store.
 * {@link #toString()} never shows the secrets.
 */
public final class SaltSystem {
  static final String BUCKET_COUNT = "salt.bucket_count";
  static final String CREATED = "salt.created_ms";
  static final String SALT_SEED = "salt.seed";
  static final String BUCKET_ID_SECRET = "salt.bucket_id_secret";
  static final String FIRST_LEVEL_SALT = "identity.first_level_salt";

  private final int bucketCount;
  private final Instant created;
  private final byte[] saltSeed;
  private final byte[] bucketIdSecret;
  private final byte[] firstLevelSalt;

  public SaltSystem(
      int bucketCount,
      Instant created,
      byte[] saltSeed,
      byte[] bucketIdSecret,
      byte[] firstLevelSalt) {
    if (bucketCount < 1) {
      throw new IllegalArgumentException("bucket count must be positive");
    }
    this.bucketCount = bucketCount;
    this.created = created;
    this.saltSeed = saltSeed.clone();
    this.bucketIdSecret = bucketIdSecret.clone();
    this.firstLevelSalt = firstLevelSalt.clone();
  }

  /**
   * Reads the parameters from {@code meta}, creating any that are missing (first start). When two
   * nodes bootstrap at once, both end up with the values the first writer stored.
   *
   * @throws IllegalStateException if the store was created with a different bucket count
   */
  public static SaltSystem loadOrCreate(
      MetaStore meta, int bucketCount, Clock clock, SecureRandom random) {
    int stored = ByteBuffer.wrap(meta.putIfAbsent(BUCKET_COUNT, intBytes(bucketCount))).getInt();
    if (stored != bucketCount) {
      throw new IllegalStateException(
          "salt.buckets is "
              + bucketCount
              + " but this store was created with "
              + stored
              + " buckets; the bucket count cannot change for an existing store");
    }
    long createdMs = clock.instant().getEpochSecond() * 1000;
    Instant created =
        Instant.ofEpochMilli(
            ByteBuffer.wrap(
                    meta.putIfAbsent(CREATED, ByteBuffer.allocate(8).putLong(createdMs).array()))
                .getLong());
    return new SaltSystem(
        bucketCount,
        created,
        meta.putIfAbsent(SALT_SEED, randomBytes(random)),
        meta.putIfAbsent(BUCKET_ID_SECRET, randomBytes(random)),
        meta.putIfAbsent(FIRST_LEVEL_SALT, randomBytes(random)));
  }

  private static byte[] intBytes(int value) {
    return ByteBuffer.allocate(4).putInt(value).array();
  }

  private static byte[] randomBytes(SecureRandom random) {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return b;
  }

  public int bucketCount() {
    return bucketCount;
  }

  /** When the generation-0 salts took effect (whole seconds). */
  public Instant created() {
    return created;
  }

  byte[] saltSeed() {
    return saltSeed;
  }

  byte[] bucketIdSecret() {
    return bucketIdSecret;
  }

  /** A copy of the secret first-level salt. */
  public byte[] firstLevelSalt() {
    return firstLevelSalt.clone();
  }

  @Override
  public String toString() {
    return "SaltSystem{buckets=" + bucketCount + ", created=" + created + ", secrets=<redacted>}";
  }
}
