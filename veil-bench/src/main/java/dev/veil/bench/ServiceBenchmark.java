package dev.veil.bench;

import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import dev.veil.core.crypto.Sha256;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.identity.IdentityMapper;
import dev.veil.identity.MapResult;
import dev.veil.server.ServiceGraph;
import dev.veil.server.Services;
import dev.veil.storage.Store;
import dev.veil.storage.Stores;
import dev.veil.token.GenerateOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
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
 * A whole generate and a single map through the real services, as {@link ServiceGraph} builds them
 * for {@code veil serve}, on a fresh SQLite store in a temporary directory with the production
 * bucket count. This is the domain work of a request without HTTP and JSON: parse the email, derive
 * the first-level hash and advertising id, check opt-outs, and (generate) encrypt both tokens. Each
 * call takes the next of 16,384 addresses, so salts are read from all over the table.
 *
 * <p>{@link #mapHashing} is the limit of the map POST target: all the hashing that mapping one
 * identifier requires by docs/spec.md 2, and nothing else.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ServiceBenchmark {
  private static final int SAMPLES = 16384;

  @Param("1048576")
  public int buckets;

  private Path dataDir;
  private Store store;
  private Services services;
  private int siteId;
  private long clientId;
  private String[] emails;
  private String[] batchEmails;
  private IdentityMapper mapper;
  private final byte[] firstLevelHash = new byte[Sha256.BYTES];
  private final byte[] advertisingId = new byte[Sha256.BYTES];
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
    services = ServiceGraph.build(config, Clock.systemUTC(), store).services();
    ClientService.CreatedClient client =
        services.clients().create("bench", 0, Set.of(Role.GENERATOR, Role.MAPPER));
    siteId = client.client().siteId();
    clientId = client.client().id();
    emails = SampleEmails.generate(SAMPLES);
    batchEmails = SampleEmails.batchLike(SAMPLES);
    mapper = services.mapper();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    store.close();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(ServiceBenchmark::delete);
    }
  }

  private int nextIndex() {
    next = (next + 1) & (SAMPLES - 1);
    return next;
  }

  /** GET /v1/token/generate?email=… without HTTP: parse, map, opt-out check, two token encodes. */
  @Benchmark
  public GenerateOutcome generate() {
    IdentityHash identity = IdentityHash.parse(IdentityInput.EMAIL, emails[nextIndex()]);
    return services.tokens().generate(identity, siteId, clientId);
  }

  /** GET /v1/identity/map?email=… without HTTP: parse, map, opt-out check. */
  @Benchmark
  public MapResult mapOne() {
    return services.mapping().map(IdentityInput.EMAIL, emails[nextIndex()], true);
  }

  /**
   * All the hashing that mapping one identifier requires (docs/spec.md 2), through the production
   * classes and nothing else: normalize the email and SHA-256 it ({@code IdentityHash.parse}), the
   * first-level hash with the secret first-level salt, the bucket, the advertising id with the
   * bucket's salt ({@code IdentityMapper.mapInto}, as {@code POST /v1/identity/map} calls it), into
   * raw bytes: no opt-out check, no bucket id, no base64 or JSON. The addresses are those of the
   * map batches of {@code bench/run.sh} ({@code user<n>@example.com}), so the limit and the HTTP
   * figure hash the same kind of input.
   */
  @Benchmark
  public byte[] mapHashing() {
    IdentityHash identity = IdentityHash.parse(IdentityInput.EMAIL, batchEmails[nextIndex()]);
    mapper.mapInto(identity, mapper.snapshot(), firstLevelHash, advertisingId);
    return advertisingId;
  }

  private static void delete(Path p) {
    try {
      Files.delete(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
