package dev.veil.bench;

import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import dev.veil.core.crypto.Sha256;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.identity.MapBatch;
import dev.veil.salt.SaltSnapshot;
import dev.veil.server.ServiceGraph;
import dev.veil.server.Services;
import dev.veil.storage.Store;
import dev.veil.storage.Stores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What an identifier of {@code POST /v3/identity/map} costs beside one of {@code POST
 * /v1/identity/map}, without HTTP, JSON or the envelope: through the services {@code veil serve}
 * builds, on a fresh SQLite store with the production bucket count, a quarter of the buckets
 * rotated just before (about what the default daily rotation leaves within the 90 days of {@code
 * p}). Each call maps the next of 16,384 addresses of the kind bench/v3-map.sh sends ({@code
 * user<n>@example.com}) in one {@link MapBatch}, as both endpoints do.
 *
 * <ul>
 *   <li>{@link #v1Entry}: map, opt-out check, the bucket id (what a v1 entry needs);
 *   <li>{@link #v3Entry}: map, opt-out check, the previous id when the bucket rotated within 90
 *       days, the refresh time (what a v3 entry needs);
 *   <li>{@link #previousKept}: the previous id alone, of an identifier in a rotated bucket, as the
 *       snapshot gives it (its previous salt kept after the first use);
 *   <li>{@link #previousDerived}: the same work as the snapshot did before it kept previous salts:
 *       derive the salt (two small arrays, one SHA-256 of 40 bytes), then the hash.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MapV3Benchmark {
  private static final int SAMPLES = 16384;

  @Param("1048576")
  public int buckets;

  private Path dataDir;
  private Store store;
  private MapBatch batch;
  private SaltSnapshot snapshot;
  private Instant now;
  private String[] emails;
  private byte[][] rotatedHashes;
  private int[] rotatedBuckets;
  private final byte[] seed = new byte[Sha256.BYTES];
  private final byte[] bucketId = new byte[SaltSnapshot.BUCKET_ID_CHARS];
  private final byte[] out = new byte[Sha256.BYTES];
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dataDir = Files.createTempDirectory("veil-bench-");
    VeilConfig config =
        ConfigLoader.load(
            null,
            Map.of(),
            Map.of("salt.buckets", Integer.toString(buckets), "data.dir", dataDir.toString()));
    store = Stores.open(dataDir.resolve("veil.db").toString());
    Services services = ServiceGraph.build(config, Clock.systemUTC(), store).services();
    services.salts().rotateFraction(0.25);
    batch = services.mapping().batch();
    snapshot = services.salts().current();
    now = Instant.now();
    emails = SampleEmails.batchLike(SAMPLES);
    rotatedHashes = new byte[SAMPLES][];
    rotatedBuckets = new int[SAMPLES];
    int found = 0;
    for (int i = 0; found < SAMPLES; i++) {
      String email = "user" + i + "@example.com";
      if (batch.map(IdentityInput.EMAIL, email) == MapBatch.Outcome.MAPPED
          && batch.previousAdvertisingId(now) != null) {
        byte[] firstLevelHash =
            services.mapper().firstLevelHash(IdentityHash.parse(IdentityInput.EMAIL, email));
        rotatedHashes[found] = firstLevelHash;
        rotatedBuckets[found] = snapshot.bucketOf(firstLevelHash);
        found++;
      }
    }
    new SecureRandom().nextBytes(seed);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    store.close();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(MapV3Benchmark::delete);
    }
  }

  private int nextIndex() {
    next = (next + 1) & (SAMPLES - 1);
    return next;
  }

  @Benchmark
  public byte[] v1Entry() {
    if (batch.map(IdentityInput.EMAIL, emails[nextIndex()]) == MapBatch.Outcome.MAPPED) {
      batch.copyBucketId(bucketId, 0);
    }
    return bucketId;
  }

  @Benchmark
  public long v3Entry() {
    if (batch.map(IdentityInput.EMAIL, emails[nextIndex()]) != MapBatch.Outcome.MAPPED) {
      return 0;
    }
    byte[] previous = batch.previousAdvertisingId(now);
    return batch.refreshFromSeconds(now) + (previous == null ? 0 : previous[0]);
  }

  @Benchmark
  public byte[] previousKept() {
    int i = nextIndex();
    snapshot.hashWithPreviousSaltInto(rotatedHashes[i], rotatedBuckets[i], out, 0);
    return out;
  }

  @Benchmark
  public byte[] previousDerived() {
    int i = nextIndex();
    byte[] input = new byte[8];
    int bucket = rotatedBuckets[i];
    input[0] = (byte) (bucket >>> 24);
    input[1] = (byte) (bucket >>> 16);
    input[2] = (byte) (bucket >>> 8);
    input[3] = (byte) bucket;
    input[7] = (byte) (snapshot.generation(bucket) - 1);
    byte[] previous = new byte[Sha256.BYTES];
    Sha256.digestInto(seed, input, 0, input.length, previous, 0);
    Sha256.digestInto(rotatedHashes[i], previous, 0, Sha256.BYTES, out, 0);
    return out;
  }

  private static void delete(Path p) {
    try {
      Files.delete(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
