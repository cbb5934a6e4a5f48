package dev.veil.http.testing;

import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.core.crypto.Sha256;
import dev.veil.http.HttpConnectionGate;
import dev.veil.http.PublicHttpServer;
import dev.veil.net.ConnectionLimit;
import dev.veil.observability.Metrics;
import dev.veil.server.Services;
import dev.veil.testing.Http;
import dev.veil.testing.Http.Response;
import dev.veil.testing.InMemoryNode;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.TestConfigs;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real {@link PublicHttpServer} on 127.0.0.1 and an ephemeral port in front of an {@link
 * InMemoryNode} (the production service graph over in-memory stores and a {@link MutableClock}),
 * its connections admitted against a {@link ConnectionLimit} of its own ({@code
 * limits.max-connections}). Tests talk to it over HTTP/1.1 like any client, through {@link Http}.
 */
public final class TestNode implements AutoCloseable {
  /** Where the node's clock starts. */
  public static final Instant START = Instant.parse("2025-03-01T12:00:00Z");

  private final InMemoryNode node;
  private final Metrics metrics = new Metrics();
  private final Vertx vertx;
  private final PublicHttpServer server;
  private final int port;
  private final Http http;

  private TestNode(Map<String, String> settings) {
    List<String> keyValues = new ArrayList<>();
    settings.forEach((key, value) -> keyValues.addAll(List.of(key, value)));
    this.node = new InMemoryNode(START, TestConfigs.config(keyValues.toArray(String[]::new)));
    HttpConnectionGate gate = new HttpConnectionGate();
    gate.admitAgainst(
        ConnectionLimit.forNode(node.services().config().connections().maxConnections(), metrics));
    this.vertx =
        Vertx.builder()
            .with(new VertxOptions().setEventLoopPoolSize(2))
            .withTransport(gate.transport())
            .build();
    this.server =
        new PublicHttpServer(
            vertx, node.services().config(), node.services().publicApi(), metrics, 2, gate);
    this.port = await(server.start());
    this.http = new Http("http://127.0.0.1:" + port, HttpClient.Version.HTTP_1_1);
  }

  /**
   * A node with the test defaults ({@link TestConfigs}: veil profile, {@value TestConfigs#BUCKETS}
   * buckets).
   */
  public static TestNode start() {
    return new TestNode(Map.of());
  }

  /**
   * A node with the given settings ({@code "api.profile" -> "uid2"}, limits, …) over the test
   * defaults.
   */
  public static TestNode start(Map<String, String> settings) {
    return new TestNode(settings);
  }

  public Services services() {
    return node.services();
  }

  public MutableClock clock() {
    return node.clock();
  }

  public InMemoryStores store() {
    return node.store();
  }

  public Metrics metrics() {
    return metrics;
  }

  public int port() {
    return port;
  }

  public PublicHttpServer server() {
    return server;
  }

  /** A new enabled client with its own site and {@code roles}; returns the API key. */
  public String newApiKey(Role... roles) {
    return node.newClientKey("test client", roles);
  }

  /** A new enabled client with its own site and {@code roles}. */
  public ClientService.CreatedClient newClient(Role... roles) {
    return node.newClient("test client", roles);
  }

  /** Standard base64 of SHA-256 of {@code normalized}: the {@code *_hash} form of an identifier. */
  public static String sha256Base64(String normalized) {
    return Base64.getEncoder()
        .encodeToString(Sha256.digest(normalized.getBytes(StandardCharsets.UTF_8)));
  }

  public URI uri(String pathAndQuery) {
    return http.uri(pathAndQuery);
  }

  /** GET with an optional API key (null sends no Authorization header). */
  public Response get(String pathAndQuery, String apiKey) {
    return http.get(pathAndQuery, apiKey);
  }

  /** POST of a JSON text with an optional API key. */
  public Response post(String path, String apiKey, String json) {
    return http.post(path, apiKey, json);
  }

  public Response send(HttpRequest request) {
    return http.send(request);
  }

  /** Waits up to 30 s for a Vert.x future. */
  public static <T> T await(io.vertx.core.Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
