package dev.veil.http;

import dev.veil.config.VeilConfig;
import dev.veil.observability.Metrics;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The public HTTP/JSON API of a node (docs/spec.md section 1) on Vert.x core.
 *
 * <p>{@link #start()} binds {@code http.host}:{@code http.port} (port 0 picks a free port) with one
 * listener per event loop, all sharing the port, so requests are spread over the cores. Each
 * listener enforces the limits of docs/spec.md 11 at the protocol level (header size, idle timeout;
 * the header and body deadlines and the node's connection limit in {@link ListenerConnections}) and
 * hands requests to one shared {@link RequestDispatcher}. {@link #stop()} stops accepting
 * connections and lets in-flight requests finish (up to {@code http.shutdown-timeout}).
 *
 * <p>Hot paths (generate, refresh, validate, map) run on the event loop without blocking; only the
 * opt-out store write runs on a worker thread. Start and stop once each; thread-safe.
 */
public final class PublicHttpServer {
  private static final AtomicInteger RANDOM_SHARED_PORTS = new AtomicInteger();

  private final Vertx vertx;
  private final VeilConfig config;
  private final int listeners;
  private final HttpConnectionGate gate;
  private final ListenerConnections.Deadlines deadlines;
  private final RequestDispatcher dispatcher;
  private final List<String> deployments = new CopyOnWriteArrayList<>();

  /**
   * A server with one listener per available processor.
   *
   * @param gate the gate of {@code vertx}'s transport, which admits connections against the node's
   *     connection limit
   */
  public PublicHttpServer(
      Vertx vertx, VeilConfig config, PublicApi api, Metrics metrics, HttpConnectionGate gate) {
    this(vertx, config, api, metrics, Runtime.getRuntime().availableProcessors(), gate);
  }

  /**
   * @param listeners how many event loops accept connections (at least 1; more than the Vert.x
   *     event loop pool size gains nothing)
   * @param gate the gate of {@code vertx}'s transport ({@link HttpConnectionGate#transport()}),
   *     which admits connections against the node's connection limit
   */
  public PublicHttpServer(
      Vertx vertx,
      VeilConfig config,
      PublicApi api,
      Metrics metrics,
      int listeners,
      HttpConnectionGate gate) {
    if (listeners < 1) {
      throw new IllegalArgumentException("listeners must be at least 1");
    }
    this.vertx = vertx;
    this.config = config;
    this.listeners = listeners;
    this.gate = gate;
    this.deadlines = ListenerConnections.Deadlines.of(config);
    this.dispatcher = new RequestDispatcher(vertx, config, api, metrics);
  }

  /** Binds and listens; completes with the actual port once every listener accepts connections. */
  public Future<Integer> start() {
    int port = config.http().port();
    // Vert.x shares a port between listeners only when they ask for the same port number, and a
    // request for port 0 binds a new random port each time; a negative number asks for one
    // random port shared by every listener that uses the same number.
    return deploy(port == 0 ? RANDOM_SHARED_PORTS.decrementAndGet() : port, listeners);
  }

  /**
   * Stops accepting connections and completes once in-flight requests finished, or once {@code
   * http.shutdown-timeout} has passed and the connections of those still running were closed.
   */
  public Future<Void> stop() {
    dispatcher.beginStop();
    List<Future<Void>> undeployed = deployments.stream().map(vertx::undeploy).toList();
    deployments.clear();
    return Future.all(undeployed).mapEmpty();
  }

  private Future<Integer> deploy(int port, int instances) {
    HttpServerOptions options = options(port);
    AtomicInteger actualPort = new AtomicInteger(port);
    return vertx
        .deployVerticle(
            () ->
                new Listener(
                    options,
                    dispatcher,
                    new ListenerConnections(gate, deadlines),
                    config.http().shutdownTimeout(),
                    actualPort::set),
            new DeploymentOptions().setInstances(instances))
        .map(
            id -> {
              deployments.add(id);
              return actualPort.get();
            });
  }

  private HttpServerOptions options(int port) {
    VeilConfig.Limits limits = config.limits();
    return new HttpServerOptions()
        .setHost(config.http().host())
        .setPort(port)
        .setMaxHeaderSize(limits.maxHeaderBytes())
        .setMaxInitialLineLength(limits.maxHeaderBytes())
        .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, config.http().idleTimeout().toMillis()))
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
        .setHandle100ContinueAutomatically(false)
        // HTTP/1.1 only (docs/spec.md 1.1); h2c also kept the header timeout from starting
        .setHttp2ClearTextEnabled(false)
        .setCompressionSupported(false)
        .setDecompressionSupported(false)
        .setTcpNoDelay(true);
  }
}
