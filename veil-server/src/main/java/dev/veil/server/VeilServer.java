package dev.veil.server;

import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.config.VeilConfig;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.RefreshTokenCodec;
import dev.veil.grpc.AdminGrpcServer;
import dev.veil.http.PublicHttpServer;
import dev.veil.identity.IdentityMapService;
import dev.veil.identity.IdentityMapper;
import dev.veil.key.KeyService;
import dev.veil.observability.Metrics;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltService;
import dev.veil.salt.SaltSystem;
import dev.veil.storage.Store;
import dev.veil.storage.Stores;
import dev.veil.token.TestIdentities;
import dev.veil.token.TokenService;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: builds the whole object graph of one node by hand, loads the store into
 * memory, starts the listeners and jobs, and stops everything in reverse order.
 *
 * <p>Start-up order: open the store (migrations) → load or create the salt system → catch up keys,
 * salts, clients, opt-outs → make sure keysets exist → bootstrap the admin client on an empty store
 * → start HTTP and gRPC → mark ready → start the background jobs.
 */
public final class VeilServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VeilServer.class);

  private final Store store;
  private final Services services;
  private final Vertx vertx;
  private final PublicHttpServer http;
  private final AdminGrpcServer grpc;
  private final ExecutorService grpcExecutor;
  private final BackgroundJobs jobs;
  private final int httpPort;
  private final int grpcPort;
  private final String bootstrapAdminKey;
  private boolean closed;

  private VeilServer(VeilConfig config, Clock clock) {
    SecureRandom random = new SecureRandom();
    this.store = Stores.open(config.db());
    try {
      KeyService keys = new KeyService(store.keys(), config.keys(), clock, random);
      SaltSystem system = SaltSystem.loadOrCreate(store.meta(), config.bucketCount(), clock, random);
      SaltService salts = new SaltService(system, store.salts(), store.meta(), clock);
      OptOutService optOuts = new OptOutService(store.optOuts(), clock);
      ClientService clients = new ClientService(store.clients(), keys, clock, random);
      keys.catchUp();
      salts.catchUp();
      optOuts.catchUp();
      clients.catchUp();
      keys.ensureKeysets(clients.list().stream().map(ApiClient::siteId).distinct().toList());
      this.bootstrapAdminKey = bootstrapAdmin(clients).orElse(null);

      IdentityMapper mapper = new IdentityMapper(salts);
      TestIdentities tests = new TestIdentities(config.profile(), config.testEmail(), mapper);
      NonceSource nonces = NonceSource.secure();
      TokenService tokens = new TokenService(mapper, optOuts, keys, tests, config.tokens(), config.profile(),
          new AdvertisingTokenCodec(nonces), new RefreshTokenCodec(nonces), clock);
      IdentityMapService mapping = new IdentityMapService(mapper, optOuts, tests::isAlwaysOptedOut);
      Readiness readiness = new Readiness(keys, clock);
      this.services = new Services(config, clock, keys, salts, optOuts, clients,
          new ApiKeyAuthenticator(clients::registry), mapper, mapping, tokens, tests, readiness);

      this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Runtime.getRuntime().availableProcessors()));
      this.http = new PublicHttpServer(vertx, services, new Metrics());
      this.httpPort = await(http.start().toCompletionStage().toCompletableFuture());
      this.grpcExecutor = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "veil-grpc");
        t.setDaemon(true);
        return t;
      });
      this.grpc = new AdminGrpcServer(config.grpc(), services, grpcExecutor);
      this.grpcPort = grpc.start();
      readiness.markLoaded();
      this.jobs = new BackgroundJobs(services, store.jobLock(), clock);
      jobs.start();
      LOG.info("event=started http_port={} grpc_port={} store=\"{}\" buckets={} profile={}", httpPort, grpcPort,
          store.describe(), system.bucketCount(), config.profile());
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** Builds and starts a node; returns once it is ready to serve. */
  public static VeilServer start(VeilConfig config, Clock clock) {
    return new VeilServer(config, clock);
  }

  private static Optional<String> bootstrapAdmin(ClientService clients) {
    boolean hasAdmin = clients.list().stream().anyMatch(c -> c.roles().contains(Role.ADMIN));
    if (hasAdmin) {
      return Optional.empty();
    }
    ClientService.CreatedClient admin = clients.create("admin", 0, java.util.Set.of(Role.ADMIN));
    LOG.info("event=admin_bootstrapped client_id={}", admin.client().id());
    return Optional.of(admin.key().reveal());
  }

  private static <T> T await(java.util.concurrent.CompletableFuture<T> future) {
    try {
      return future.get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      throw new IllegalStateException("cannot start the HTTP listener: " + cause.getMessage(), cause);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the HTTP listener did not start within 30 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting", e);
    }
  }

  public Services services() {
    return services;
  }

  public int httpPort() {
    return httpPort;
  }

  public int grpcPort() {
    return grpcPort;
  }

  /** The admin key created on this start of an empty store, shown once; empty otherwise. */
  public Optional<String> bootstrapAdminKey() {
    return Optional.ofNullable(bootstrapAdminKey);
  }

  /** Graceful stop: not ready, stop accepting, finish in-flight requests, then release everything. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    services.readiness().markDraining();
    jobs.close();
    try {
      http.stop().toCompletionStage().toCompletableFuture().get(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.warn("event=http_stop_incomplete error={}", e.getClass().getSimpleName());
    }
    grpc.stop();
    grpcExecutor.shutdown();
    vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> null).join();
    store.close();
    LOG.info("event=stopped");
  }
}
