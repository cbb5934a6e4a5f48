package dev.veil.testing;

import dev.veil.console.ConsoleServer;
import dev.veil.deduction.DeductionService;
import dev.veil.observability.Metrics;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * The web console ({@link ConsoleServer}) on 127.0.0.1 and an ephemeral port in front of an {@link
 * InMemoryNode} (the production service graph over in-memory stores and a {@link MutableClock},
 * which sessions expire by), with the deductions of the node's store. Tests talk to it over HTTP
 * with a {@link ConsoleBrowser}. Close it after each test.
 */
public final class RunningConsole implements AutoCloseable {
  /** Where the node's clock starts. */
  public static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

  private final InMemoryNode node;
  private final DeductionService deductions;
  private final Vertx vertx;
  private final ConsoleServer server;
  private final int port;

  private RunningConsole(String... settings) {
    this.node = new InMemoryNode(START, TestConfigs.config(settings));
    this.deductions =
        new DeductionService(node.store().deductions(), node.services().audit(), node.clock());
    this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    var config = node.services().config();
    this.server =
        new ConsoleServer(
            vertx,
            config.console(),
            config.limits().maxHeaderBytes(),
            node.services().consoleApi(deductions, new Metrics()));
    this.port = await(server.start());
  }

  /** A console with the test defaults, then {@code settings} (key, value, …). */
  public static RunningConsole start(String... settings) {
    return new RunningConsole(settings);
  }

  public InMemoryNode node() {
    return node;
  }

  public DeductionService deductions() {
    return deductions;
  }

  public int port() {
    return port;
  }

  /** {@code http://127.0.0.1:<port>}. */
  public String origin() {
    return "http://127.0.0.1:" + port;
  }

  /** A new browser without cookies. */
  public ConsoleBrowser browser() {
    return new ConsoleBrowser(origin());
  }

  private static <T> T await(io.vertx.core.Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try {
      await(server.stop());
    } finally {
      await(vertx.close());
    }
  }
}
