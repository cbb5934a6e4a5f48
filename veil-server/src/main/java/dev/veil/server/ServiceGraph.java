package dev.veil.server;

import dev.veil.audit.AuditLog;
import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.config.VeilConfig;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.RefreshTokenCodec;
import dev.veil.deduction.DeductionService;
import dev.veil.identity.IdentityMapService;
import dev.veil.identity.IdentityMapper;
import dev.veil.key.KeyService;
import dev.veil.observability.Readiness;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltService;
import dev.veil.salt.SaltSystem;
import dev.veil.site.SiteService;
import dev.veil.storage.Store;
import dev.veil.token.TestIdentities;
import dev.veil.token.TokenService;
import dev.veil.webhook.WebhookService;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the domain services of one node on an open store and loads their state into memory: salt
 * system → keys, salts, opt-outs, clients caught up → keysets ensured → admin client bootstrapped
 * on an empty store. No listeners; {@link VeilServer} adds those.
 *
 * <p>{@link DeductionService} sits beside {@link Services} rather than in it: it is admin-only,
 * holds no state in memory and is served by the admin gRPC listener alone.
 */
public final class ServiceGraph {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceGraph.class);

  private ServiceGraph() {}

  /**
   * The services, the deduction service and, on the first start of an empty store, the admin key to
   * show once.
   */
  public record Built(
      Services services, Optional<String> bootstrapAdminKey, DeductionService deductions) {}

  public static Built build(VeilConfig config, Clock clock, Store store) {
    return build(config, clock, store, new StartupPhases());
  }

  static Built build(VeilConfig config, Clock clock, Store store, StartupPhases phases) {
    SecureRandom random = new SecureRandom();
    KeyService keys = new KeyService(store.keys(), config.keys(), clock, random);
    SaltSystem system = SaltSystem.loadOrCreate(store.meta(), config.bucketCount(), clock, random);
    phases.done("salt_system");
    SaltService salts = new SaltService(system, store.salts(), config.saltRotation(), clock);
    phases.done("salt_snapshot");
    OptOutService optOuts = new OptOutService(store.optOuts(), clock);
    ClientService clients = new ClientService(store.clients(), keys, clock, random);
    SiteService sites = new SiteService(store.sites(), clock);
    Instant loadStarted = clock.instant();
    keys.catchUp();
    phases.done("keys_loaded");
    salts.catchUp();
    phases.done("salt_rotations_loaded");
    optOuts.catchUp();
    phases.done("optouts_loaded");
    clients.catchUp();
    sites.catchUp();
    keys.ensureKeysets(clients.list().stream().map(ApiClient::siteId).distinct().toList());
    Optional<String> adminKey =
        store
            .jobLock()
            .runExclusive("bootstrap-admin", () -> bootstrapAdmin(clients))
            .flatMap(o -> o);
    // Clients stored by a release without secrets get one now (their keys stay as they are).
    store
        .jobLock()
        .runExclusive("client-secrets", clients::ensureSecrets)
        .filter(given -> given > 0)
        .ifPresent(given -> LOG.info("event=client_secrets_given count={}", given));
    phases.done("clients_loaded");

    IdentityMapper mapper = new IdentityMapper(salts);
    TestIdentities tests = new TestIdentities(config.profile(), config.testEmail(), mapper);
    NonceSource nonces = NonceSource.secure();
    TokenService tokens =
        new TokenService(
            mapper,
            optOuts,
            keys,
            tests,
            config.tokens(),
            config.profile(),
            new AdvertisingTokenCodec(nonces),
            new RefreshTokenCodec(nonces),
            clock);
    IdentityMapService mapping = new IdentityMapService(mapper, optOuts, tests::isAlwaysOptedOut);
    Readiness readiness = new Readiness(keys, clock, config.syncMaxStaleness());
    readiness.recordSync(loadStarted);
    AuditLog audit = new AuditLog(store.audit(), clock);
    Services services =
        new Services(
            config,
            clock,
            keys,
            salts,
            optOuts,
            clients,
            sites,
            new ApiKeyAuthenticator(clients::registry),
            mapper,
            mapping,
            tokens,
            tests,
            readiness,
            new WebhookService(store.webhooks(), clients, clock, random),
            audit);
    phases.done("services_built");
    return new Built(services, adminKey, new DeductionService(store.deductions(), audit, clock));
  }

  private static Optional<String> bootstrapAdmin(ClientService clients) {
    clients.catchUp();
    // Also the way back in if every ADMIN client ended up disabled (the API refuses to disable the
    // last one, but two nodes could race, or rows may have been edited by hand): a start creates
    // one.
    if (clients.enabledAdmins() > 0) {
      return Optional.empty();
    }
    ClientService.CreatedClient admin = clients.create("admin", 0, Set.of(Role.ADMIN));
    LOG.info("event=admin_bootstrapped client_id={}", admin.client().id());
    return Optional.of(admin.key().reveal());
  }
}
