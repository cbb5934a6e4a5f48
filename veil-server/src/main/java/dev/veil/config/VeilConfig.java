package dev.veil.config;

import dev.veil.common.ApiProfile;
import dev.veil.key.KeyPolicy;
import dev.veil.salt.SaltRotationPolicy;
import dev.veil.site.SharingPolicy;
import dev.veil.token.TokenLifetimes;
import dev.veil.webhook.DeliverySettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Typed, validated configuration of {@code veil serve}, built once at start by {@link ConfigLoader}
 * from defaults, a file, environment variables and flags. Immutable.
 */
public record VeilConfig(
    Http http,
    Grpc grpc,
    Path dataDir,
    String db,
    Duration dbTimeout,
    ApiProfile profile,
    int bucketCount,
    SaltRotationPolicy saltRotation,
    Duration jobInterval,
    Duration syncInterval,
    Duration syncMaxStaleness,
    TokenLifetimes tokens,
    KeyPolicy keys,
    SharingPolicy sharing,
    String testEmail,
    Limits limits,
    List<String> corsOrigins,
    boolean accessLog,
    Demo demo,
    Console console,
    Connections connections,
    DeliverySettings webhooks,
    Deductions deductions,
    Map<String, String> settings) {

  /**
   * What a node adds to {@code 2 × sync.interval} in the propagation bound: a poll's own duration,
   * a slow database, a GC pause.
   */
  public static final Duration PROPAGATION_MARGIN = Duration.ofSeconds(5);

  /**
   * Every setting's effective value as text, with secrets (a database password) redacted: safe to
   * log.
   */
  public VeilConfig {
    settings = Map.copyOf(settings);
  }

  /**
   * How long a write committed on one node may take to reach every other healthy node's memory:
   * {@code 2 × sync.interval +} {@link #PROPAGATION_MARGIN}. A poll starts at most one interval
   * after the previous one ended and sees every write committed before it started, so one interval
   * plus two polls' durations suffice; the bound allows a whole interval more.
   */
  public static Duration propagationBound(Duration syncInterval) {
    return syncInterval.multipliedBy(2).plus(PROPAGATION_MARGIN);
  }

  public Duration propagationBound() {
    return propagationBound(syncInterval);
  }

  /**
   * Deductions: how often the expiry job closes the records whose validity window ended, and how
   * often a change stream reads the log for changes made through other nodes.
   */
  public record Deductions(Duration expiryInterval, Duration watchInterval) {}

  /**
   * The public HTTP listener. On SIGTERM it serves on for {@code drainDelay}, then stops accepting
   * and gives requests in flight up to {@code shutdownTimeout} before closing their connections. A
   * streamed answer whose client takes longer than {@code streamStallTimeout} to accept one chunk
   * is closed.
   */
  public record Http(
      String host,
      int port,
      Duration headerTimeout,
      Duration idleTimeout,
      Duration drainDelay,
      Duration shutdownTimeout,
      Duration streamStallTimeout) {}

  /** The admin gRPC listener. */
  public record Grpc(String host, int port, int maxMessageBytes) {}

  /** The demo publisher site of {@code veil serve --demo}, on its own port beside the API. */
  public record Demo(boolean enabled, int port) {}

  /**
   * The web console ({@code dev.veil.console}), on a listener of its own. A session ends {@code
   * idleTimeout} after its last request, and {@code lifetime} after its sign-in whatever happens.
   */
  public record Console(
      boolean enabled, String host, int port, Duration idleTimeout, Duration lifetime) {}

  /**
   * Bounds on connections (docs/spec.md 11). {@code maxConnections}: open at once over the HTTP and
   * admin gRPC listeners together, 0 for what the file-descriptor limit allows at start. {@code
   * httpBodyTimeout}: from a request's head to the end of its body. {@code grpcIdleTimeout}: an
   * admin connection without a call in flight (or without a complete HTTP/2 preface) is closed.
   * {@code grpcMaxAge}: any admin connection is told to go away, its calls in flight then get
   * {@code grpcMaxAgeGrace}.
   */
  public record Connections(
      int maxConnections,
      Duration httpBodyTimeout,
      Duration grpcIdleTimeout,
      Duration grpcMaxAge,
      Duration grpcMaxAgeGrace) {}

  /**
   * Request limits: body bytes, header bytes, identifiers per map batch, requests/s per client (0 =
   * off), and the bytes of streamed answers the node holds in memory at once, all connections
   * together.
   */
  public record Limits(
      int maxBodyBytes,
      int maxHeaderBytes,
      int maxBatchSize,
      int rateLimitPerSecond,
      int streamBufferBytes) {}
}
