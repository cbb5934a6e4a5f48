package dev.veil.grpc.fakes;

import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.RefreshTokenCodec;
import dev.veil.identity.IdentityMapService;
import dev.veil.identity.IdentityMapper;
import dev.veil.key.KeyService;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltService;
import dev.veil.salt.SaltSystem;
import dev.veil.server.Readiness;
import dev.veil.server.Services;
import dev.veil.token.TestIdentities;
import dev.veil.token.TokenService;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One node's real {@link Services} over in-memory stores: keysets bootstrapped, {@value
 * #BUCKETS} salt buckets, a clock that moves only when told. {@link #faults()} breaks every store
 * at once.
 */
public final class FakeNode {
  public static final int BUCKETS = 64;
  public static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

  private final StoreFaults faults = new StoreFaults();
  private final MutableClock clock = new MutableClock(START);
  private final InMemoryKeyStore keyStore;
  private final Services services;

  public FakeNode() {
    AtomicLong seq = new AtomicLong();
    keyStore = new InMemoryKeyStore(faults, seq);
    InMemoryMetaStore meta = new InMemoryMetaStore(faults);
    SecureRandom random = new SecureRandom();
    VeilConfig config = ConfigLoader.load(null, Map.of(),
        Map.of("salt.buckets", String.valueOf(BUCKETS), "grpc.port", "0"));

    KeyService keys = new KeyService(keyStore, config.keys(), clock, random);
    keys.ensureKeysets(List.of());
    SaltSystem system = SaltSystem.loadOrCreate(meta, config.bucketCount(), clock, random);
    SaltService salts = new SaltService(system, new InMemorySaltStore(faults, seq), meta, clock);
    OptOutService optOuts = new OptOutService(new InMemoryOptOutStore(faults, seq), clock);
    ClientService clients = new ClientService(new InMemoryClientStore(faults, seq), keys, clock, random);
    IdentityMapper mapper = new IdentityMapper(salts);
    TestIdentities tests = new TestIdentities(config.profile(), config.testEmail(), mapper);
    IdentityMapService mapping = new IdentityMapService(mapper, optOuts, tests::isAlwaysOptedOut);
    TokenService tokens = new TokenService(mapper, optOuts, keys, tests, config.tokens(), config.profile(),
        new AdvertisingTokenCodec(NonceSource.secure()), new RefreshTokenCodec(NonceSource.secure()), clock);
    Readiness readiness = new Readiness(keys, clock);
    readiness.markLoaded();
    services = new Services(config, clock, keys, salts, optOuts, clients,
        new ApiKeyAuthenticator(clients::registry), mapper, mapping, tokens, tests, readiness);
  }

  public Services services() {
    return services;
  }

  public StoreFaults faults() {
    return faults;
  }

  public MutableClock clock() {
    return clock;
  }

  /** A new client with these roles; returns its API key. */
  public String newClientKey(String name, Role... roles) {
    return services.clients().create(name, 0, Set.of(roles)).key().reveal();
  }

  /** Every key with its secret (to prove that none is ever sent). */
  public List<EncryptionKey> keyMaterial() {
    return keyStore.all();
  }
}
