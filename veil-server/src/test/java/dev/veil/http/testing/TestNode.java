package dev.veil.http.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.http.PublicHttpServer;
import dev.veil.observability.Metrics;
import dev.veil.server.Services;
import dev.veil.testing.InMemoryNode;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.TestConfigs;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real {@link PublicHttpServer} on 127.0.0.1 and an ephemeral port in front of an {@link
 * InMemoryNode} (the production service graph over in-memory stores and a {@link MutableClock}).
 * Tests talk to it over HTTP like any client.
 */
public final class TestNode implements AutoCloseable {
  /** Where the node's clock starts. */
  public static final Instant START = Instant.parse("2025-03-01T12:00:00Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final InMemoryNode node;
  private final Metrics metrics = new Metrics();
  private final Vertx vertx;
  private final PublicHttpServer server;
  private final int port;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private TestNode(Map<String, String> settings) {
    List<String> keyValues = new ArrayList<>();
    settings.forEach((key, value) -> keyValues.addAll(List.of(key, value)));
    this.node = new InMemoryNode(START, TestConfigs.config(keyValues.toArray(String[]::new)));
    this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    this.server = new PublicHttpServer(vertx, node.services(), metrics, 2);
    this.port = await(server.start());
  }

  /** A node with the test defaults ({@link TestConfigs}: veil profile, {@value TestConfigs#BUCKETS} buckets). */
  public static TestNode start() {
    return new TestNode(Map.of());
  }

  /** A node with the given settings ({@code "api.profile" -> "uid2"}, limits, …) over the test defaults. */
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
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(normalized.getBytes(StandardCharsets.UTF_8));
      return java.util.Base64.getEncoder().encodeToString(digest);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code Bearer <key>}. */
  public static String bearer(String apiKey) {
    return "Bearer " + apiKey;
  }

  public static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  public URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port + pathAndQuery);
  }

  /** GET with an optional API key (null sends no Authorization header). */
  public Response get(String pathAndQuery, String apiKey) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(pathAndQuery)).GET();
    if (apiKey != null) {
      request.header("Authorization", bearer(apiKey));
    }
    return send(request.build());
  }

  /** POST of a JSON text with an optional API key. */
  public Response post(String path, String apiKey, String json) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json));
    if (apiKey != null) {
      request.header("Authorization", bearer(apiKey));
    }
    return send(request.build());
  }

  public Response send(HttpRequest request) {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.headers(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
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

  public static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }

  /** An HTTP answer with its body parsed on demand. */
  public record Response(int code, HttpHeaders headers, String body) {
    public JsonNode json() {
      return parse(body);
    }

    /** The envelope's {@code status} word. */
    public String status() {
      return json().path("status").asText(null);
    }

    public String message() {
      return json().path("message").asText(null);
    }

    public JsonNode bodyNode() {
      return json().path("body");
    }

    public String header(String name) {
      return headers.firstValue(name).orElse(null);
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
