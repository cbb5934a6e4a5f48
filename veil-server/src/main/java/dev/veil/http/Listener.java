package dev.veil.http;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * One HTTP listener on one event loop, deployed once per event loop by {@link PublicHttpServer}.
 * Vert.x shares the bound port between listeners with the same host and port and spreads new
 * connections over them. Its connections are admitted and their requests' deadlines kept by its own
 * {@link ListenerConnections}, swept on its event loop.
 */
final class Listener extends VerticleBase {
  private final HttpServerOptions options;
  private final RequestDispatcher dispatcher;
  private final ListenerConnections connections;
  private final Duration grace;
  private final IntConsumer boundPort;
  private HttpServer server;
  private long sweep = -1;

  Listener(
      HttpServerOptions options,
      RequestDispatcher dispatcher,
      ListenerConnections connections,
      Duration grace,
      IntConsumer boundPort) {
    this.options = options;
    this.dispatcher = dispatcher;
    this.connections = connections;
    this.grace = grace;
    this.boundPort = boundPort;
  }

  @Override
  public Future<?> start() {
    server =
        vertx
            .createHttpServer(new HttpServerOptions(options))
            .connectionHandler(
                connection -> {
                  StrictRequestDecoder.install(connection, options);
                  connections.opened(connection);
                })
            .invalidRequestHandler(
                request -> dispatcher.handleInvalid(request, connections.of(request)))
            .requestHandler(request -> dispatcher.handle(request, connections.of(request)));
    sweep = vertx.setPeriodic(connections.sweepMillis(), id -> connections.sweep());
    return server.listen().onSuccess(s -> boundPort.accept(s.actualPort()));
  }

  @Override
  public Future<?> stop() {
    // Deadlines are kept while requests in flight finish: a body that never ends still gets its
    // 408.
    Future<Void> stopped =
        server == null
            ? Future.succeededFuture()
            : server.shutdown(grace.toMillis(), TimeUnit.MILLISECONDS);
    return stopped.eventually(
        () -> {
          vertx.cancelTimer(sweep);
          return Future.succeededFuture();
        });
  }
}
