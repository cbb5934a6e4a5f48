package dev.veil.server;

import dev.veil.client.ClientService;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * The demo publisher site that {@code demo.enabled} starts beside the public API, on {@code
 * demo.port}. The site ({@code dev.veil.demo.DemoSite} in veil-cli, started by {@code veil serve
 * --demo}) reads tokens with the Java client, which the server does not depend on: whoever starts a
 * node with the demo passes its {@link Starter} to {@link VeilServer}.
 */
public interface Demo {
  /** The port the site listens on. */
  int port();

  /** Stops listening and releases what the site holds. */
  Future<Void> stop();

  /** Starts the site, once the public API serves. */
  @FunctionalInterface
  interface Starter {
    /**
     * Prepares the site's API clients (blocking store writes, through {@code clients}) and listens
     * on {@code host}:{@code port}; {@code apiHost}:{@code apiPort} is where the site's server side
     * reaches this node's API.
     */
    Future<? extends Demo> start(
        Vertx vertx, ClientService clients, String host, int port, String apiHost, int apiPort);
  }
}
