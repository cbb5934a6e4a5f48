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
 * connections over them.
 */
final class Listener extends VerticleBase {
  private final HttpServerOptions options;
  private final RequestDispatcher dispatcher;
  private final HeaderTimeout headerTimeout;
  private final Duration grace;
  private final IntConsumer boundPort;
  private HttpServer server;

  Listener(HttpServerOptions options, RequestDispatcher dispatcher, HeaderTimeout headerTimeout, Duration grace,
      IntConsumer boundPort) {
    this.options = options;
    this.dispatcher = dispatcher;
    this.headerTimeout = headerTimeout;
    this.grace = grace;
    this.boundPort = boundPort;
  }

  @Override
  public Future<?> start() {
    server = vertx.createHttpServer(new HttpServerOptions(options))
        .connectionHandler(connection -> {
          StrictRequestDecoder.install(connection, options);
          headerTimeout.watch(connection);
        })
        .invalidRequestHandler(dispatcher::handleInvalid)
        .requestHandler(dispatcher);
    return server.listen().onSuccess(s -> boundPort.accept(s.actualPort()));
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.shutdown(grace.toMillis(), TimeUnit.MILLISECONDS);
  }
}
