package dev.veil.server;

import dev.veil.config.VeilConfig;
import dev.veil.console.ConsoleServer;
import dev.veil.grpc.AdminGrpcServer;
import dev.veil.grpc.AdminListener;
import dev.veil.grpc.DeductionAdminService;
import dev.veil.http.HttpConnectionGate;
import dev.veil.http.PublicHttpServer;
import dev.veil.http.WebhookHttpSender;
import dev.veil.net.ConnectionLimit;
import dev.veil.observability.BuildInfo;
import dev.veil.observability.JvmMetrics;
import dev.veil.observability.Metrics;
import dev.veil.observability.ProcessMetrics;
import dev.veil.observability.WebhookMetrics;
import dev.veil.storage.Store;
import dev.veil.storage.StoreSettings;
import dev.veil.storage.Stores;
import dev.veil.webhook.WebhookDispatcher;
import io.grpc.BindableService;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: builds the whole object graph of one node by hand, loads the store into
 * memory, starts the listeners and jobs, and stops everything in reverse order.
 *
 * <p>Start-up order: open the store (migrations) → load or create the salt system → catch up keys,
 * salts, clients, opt-outs → make sure keysets exist → bootstrap the admin client on an empty store
 * → start HTTP and gRPC (IdentityAdminApi and DeductionAdminApi on the admin port) and the web
 * console (its own port) → mark ready → start the background jobs.
 */
public final class VeilServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VeilServer.class);
  private static final Duration HTTP_STOP_MARGIN = Duration.ofSeconds(5);

  private final Store store;
  private final Services services;
  private final Vertx vertx;
  private final PublicHttpServer http;
  private final Demo demo;
  private final AdminGrpcServer grpc;
  private final DeductionAdminService deductionAdmin;
  private final ConsoleServer console;
  private final int consolePort;
  private final ExecutorService grpcExecutor;
  private final BackgroundJobs jobs;
  private final WebhookDispatcher webhooks;
  private final int httpPort;
  private final int grpcPort;
  private final String bootstrapAdminKey;
  private boolean closed;

  private VeilServer(
      VeilConfig config,
      Clock clock,
      Store store,
      StartupPhases phases,
      Consumer<String> bootstrapKeySink,
      Demo.Starter demoStarter) {
    this.store = store;
    LOG.info("event=config {}", configLine(config));
    // Vert.x starts (mostly class loading) on another thread while the services load the store and
    // compute the salt snapshot: the two are independent and each takes a good part of start-up.
    HttpConnectionGate gate = new HttpConnectionGate();
    CompletableFuture<Vertx> vertxStarting = CompletableFuture.supplyAsync(() -> newVertx(gate));
    try {
      ServiceGraph.Built built = ServiceGraph.build(config, clock, store, phases);
      this.services = built.services();
      this.bootstrapAdminKey = built.bootstrapAdminKey().orElse(null);
      this.vertx = vertxStarting.join();
      phases.done("vertx_started");
      Metrics metrics = metrics(config, services);
      // One limit for both listeners, which together must stay below the descriptors the process
      // has;
      // read now that the store and Vert.x hold theirs, before anything listens.
      ConnectionLimit connections =
          ConnectionLimit.forNode(config.connections().maxConnections(), metrics);
      gate.admitAgainst(connections);
      this.http = new PublicHttpServer(vertx, config, services.publicApi(), metrics, gate);
      this.httpPort =
          await(
              http.start().toCompletionStage().toCompletableFuture(),
              "bind the public HTTP port "
                  + config.http().host()
                  + ":"
                  + config.http().port()
                  + " (http.host, http.port)");
      phases.done("http_listening");
      this.demo = config.demo().enabled() ? startDemo(config, demoStarter) : null;
      this.grpcExecutor = newGrpcExecutor();
      this.deductionAdmin =
          new DeductionAdminService(
              built.deductions(),
              services.audit(),
              config.dbTimeout(),
              config.deductions().watchInterval());
      this.grpc = adminServer(config, built, deductionAdmin, metrics, connections, grpcExecutor);
      this.grpcPort = grpc.start();
      phases.done("grpc_listening");
      this.console =
          config.console().enabled()
              ? new ConsoleServer(
                  vertx,
                  config.console(),
                  config.limits().maxHeaderBytes(),
                  services.consoleApi(built.deductions(), metrics))
              : null;
      this.consolePort =
          console == null
              ? -1
              : await(
                  console.start().toCompletionStage().toCompletableFuture(),
                  "bind the console's port "
                      + config.console().host()
                      + ":"
                      + config.console().port()
                      + " (console.host, console.port)");
      phases.done("console_listening");
      // Whoever waits for readiness finds the bootstrap admin key already saved.
      if (bootstrapAdminKey != null) {
        bootstrapKeySink.accept(bootstrapAdminKey);
      }
      services.readiness().markLoaded();
      this.jobs = new BackgroundJobs(services, built.deductions(), store.jobLock(), clock);
      jobs.start();
      this.webhooks = webhookDispatcher(config, clock, store, services, metrics);
      webhooks.start();
      LOG.info(
          "event=started http_port={} grpc_port={} console_port={} store=\"{}\" buckets={}"
              + " profile={}",
          httpPort,
          grpcPort,
          consolePort,
          store.describe(),
          config.bucketCount(),
          config.profile());
    } catch (RuntimeException e) {
      var unused = vertxStarting.thenAccept(Vertx::close); // once started; nothing waits for it
      store.close();
      throw e;
    }
  }

  /**
   * Vert.x for the public HTTP and demo listeners. Its class-path file resolver is off: Veil reads
   * its resources itself, and the resolver's cache registers a shutdown hook, which fails a start
   * that a SIGTERM has overtaken. Its transport admits every connection through {@code gate}.
   */
  private static Vertx newVertx(HttpConnectionGate gate) {
    VertxOptions options =
        new VertxOptions()
            .setEventLoopPoolSize(Runtime.getRuntime().availableProcessors())
            .setFileSystemOptions(
                new FileSystemOptions()
                    .setClassPathResolvingEnabled(false)
                    .setFileCachingEnabled(false));
    return Vertx.builder().with(options).withTransport(gate.transport()).build();
  }

  /**
   * The admin calls' workers: some calls block on the store, so they never run on a network thread.
   */
  private static ExecutorService newGrpcExecutor() {
    return Executors.newFixedThreadPool(
        4,
        r -> {
          Thread t = new Thread(r, "veil-grpc");
          t.setDaemon(true);
          return t;
        });
  }

  /** The admin port with {@code IdentityAdminApi} and {@code DeductionAdminApi}. */
  private static AdminGrpcServer adminServer(
      VeilConfig config,
      ServiceGraph.Built built,
      DeductionAdminService deductionAdmin,
      Metrics metrics,
      ConnectionLimit connections,
      ExecutorService executor) {
    Services services = built.services();
    List<BindableService> admin = List.of(services.identityAdmin(), deductionAdmin);
    return new AdminGrpcServer(
        AdminListener.onPort(config.grpc(), config.connections(), connections),
        services.authenticator(),
        admin,
        executor,
        metrics);
  }

  /** The node's metrics registry with what it reports besides requests and admin calls. */
  private static Metrics metrics(VeilConfig config, Services services) {
    Metrics metrics = new Metrics();
    metrics.gauge(
        "veil_sync_age_seconds",
        "Seconds since the last successful catch-up with the store started: how old this node's"
            + " data may be.",
        () -> services.readiness().syncAge().toMillis() / 1000.0);
    metrics.counterOf(
        "veil_optouts_recorded_total",
        "Opt-outs recorded through this node (public or admin API), repeats included.",
        services.optOuts()::recordedCount);
    metrics.gauge(
        "veil_optout_identities",
        "Opted-out identities this node holds in memory.",
        services.optOuts()::size);
    BuildInfo.register(metrics, config.profile().name().toLowerCase(java.util.Locale.ROOT));
    JvmMetrics.register(metrics);
    ProcessMetrics.register(metrics);
    return metrics;
  }

  /** Opt-out delivery to webhooks, on its own thread, one node at a time (docs/spec.md 4.1). */
  private static WebhookDispatcher webhookDispatcher(
      VeilConfig config, Clock clock, Store store, Services services, Metrics metrics) {
    WebhookMetrics listener = new WebhookMetrics(metrics);
    WebhookDispatcher dispatcher =
        new WebhookDispatcher(
            store.webhooks(),
            store.jobLock(),
            new WebhookHttpSender(config.webhooks().timeout()),
            hash -> services.mapper().mapFirstLevel(hash).advertisingId(),
            clock,
            config.webhooks(),
            listener);
    listener.watchOldest(dispatcher::oldestUndeliveredSeconds);
    return dispatcher;
  }

  private static String configLine(VeilConfig config) {
    StringBuilder line = new StringBuilder();
    new java.util.TreeMap<>(config.settings())
        .forEach(
            (k, v) ->
                line.append(line.length() == 0 ? "" : " ")
                    .append(k)
                    .append("=\"")
                    .append(v)
                    .append('"'));
    return line.toString();
  }

  private Demo startDemo(VeilConfig config, Demo.Starter starter) {
    if (starter == null) {
      throw new IllegalStateException(
          "demo.enabled: this node was started without the demo site (veil serve --demo has it)");
    }
    String host = config.http().host();
    // The demo's server side calls this node's API; a wildcard listener is reached on loopback.
    String apiHost = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
    return await(
        starter
            .start(vertx, services.clients(), host, config.demo().port(), apiHost, httpPort)
            .toCompletionStage()
            .toCompletableFuture(),
        "bind the demo site's port " + host + ":" + config.demo().port() + " (demo.port)");
  }

  /** Opens the configured store, builds and starts a node; returns once it is ready to serve. */
  public static VeilServer start(VeilConfig config, Clock clock) {
    return start(config, clock, key -> {});
  }

  /**
   * Like {@link #start(VeilConfig, Clock)}; when this start bootstraps an admin key, {@code
   * bootstrapKeySink} receives it before the node reports ready (so it can be saved first).
   */
  public static VeilServer start(
      VeilConfig config, Clock clock, Consumer<String> bootstrapKeySink) {
    return start(config, clock, bootstrapKeySink, null);
  }

  /**
   * Like {@link #start(VeilConfig, Clock, Consumer)}, with the demo site that {@code demo.enabled}
   * starts (without one, a node configured with the demo refuses to start).
   */
  public static VeilServer start(
      VeilConfig config, Clock clock, Consumer<String> bootstrapKeySink, Demo.Starter demo) {
    StartupPhases phases = new StartupPhases();
    Store store =
        Stores.open(config.db(), StoreSettings.defaults().withTimeout(config.dbTimeout()));
    phases.done("store_opened");
    return new VeilServer(config, clock, store, phases, bootstrapKeySink, demo);
  }

  /** Starts a node on a store the caller opened (tests; the node closes it on {@link #close()}). */
  public static VeilServer start(VeilConfig config, Clock clock, Store store) {
    return start(config, clock, store, null);
  }

  /**
   * Like {@link #start(VeilConfig, Clock, Store)}, with the demo site {@code demo.enabled} starts.
   */
  public static VeilServer start(VeilConfig config, Clock clock, Store store, Demo.Starter demo) {
    return new VeilServer(config, clock, store, new StartupPhases(), key -> {}, demo);
  }

  private static <T> T await(CompletableFuture<T> future, String what) {
    try {
      return future.get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      throw new IllegalStateException("cannot " + what + ": " + cause.getMessage(), cause);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("could not " + what + " within 30 s", e);
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

  /** The port of the web console, if {@code console.enabled}. */
  public OptionalInt consolePort() {
    return console == null ? OptionalInt.empty() : OptionalInt.of(consolePort);
  }

  /** The port of the demo publisher site, if {@code demo.enabled}. */
  public OptionalInt demoPort() {
    return demo == null ? OptionalInt.empty() : OptionalInt.of(demo.port());
  }

  /** The admin key created on this start of an empty store, shown once; empty otherwise. */
  public Optional<String> bootstrapAdminKey() {
    return Optional.ofNullable(bootstrapAdminKey);
  }

  /**
   * Graceful stop: not ready, keep serving for {@code http.drain-delay} so load balancers see the
   * failing readiness and stop sending, stop accepting (HTTP connections and admin calls at the
   * same moment), finish in-flight requests (HTTP up to {@code http.shutdown-timeout}, admin calls
   * up to 5 s), then release everything.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    services.readiness().markDraining();
    Duration drain = services.config().http().drainDelay();
    if (!drain.isZero()) {
      LOG.info("event=draining delay_ms={}", drain.toMillis());
      try {
        Thread.sleep(drain.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // stop at once when asked to hurry
      }
    }
    jobs.close();
    webhooks.close();
    deductionAdmin.close(); // ends the change streams, which would hold the stop of admin calls
    grpc.beginStop(); // refuses new admin calls now, not only once the HTTP requests in flight are
    // done
    // The console, the demo site and the public listener stop at the same moment as admin calls
    // are refused; then each is given its time. (Waiting for one before stopping the next would
    // leave the public listener taking new requests on kept-alive connections meanwhile.)
    CompletableFuture<Void> consoleStopped =
        console == null
            ? CompletableFuture.completedFuture(null)
            : console.stop().toCompletionStage().toCompletableFuture();
    CompletableFuture<Void> demoStopped =
        demo == null
            ? CompletableFuture.completedFuture(null)
            : demo.stop().toCompletionStage().toCompletableFuture();
    // Vert.x closes what is still in flight after http.shutdown-timeout and then completes the
    // stop; waiting a little longer lets it finish that, so only a stop that hangs counts as
    // incomplete.
    Duration httpStop = services.config().http().shutdownTimeout().plus(HTTP_STOP_MARGIN);
    awaitStop(
        http.stop().toCompletionStage().toCompletableFuture(),
        httpStop.toMillis(),
        "http_stop_incomplete");
    awaitStop(consoleStopped, 10_000, "console_stop_incomplete");
    awaitStop(demoStopped, 10_000, "demo_stop_incomplete");
    grpc.stop();
    grpcExecutor.shutdown();
    vertx
        .close()
        .toCompletionStage()
        .toCompletableFuture()
        .orTimeout(10, TimeUnit.SECONDS)
        .exceptionally(t -> null)
        .join();
    store.close();
    LOG.info("event=stopped");
  }

  private static void awaitStop(CompletableFuture<?> stopped, long millis, String event) {
    try {
      stopped.get(millis, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.warn("event={} error={}", event, e.getClass().getSimpleName());
    }
  }
}
