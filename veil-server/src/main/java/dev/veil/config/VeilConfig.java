package dev.veil.config;

import dev.veil.common.ApiProfile;
import dev.veil.key.KeyPolicy;
import dev.veil.token.TokenLifetimes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Typed, validated configuration of {@code veil serve}, built once at start by {@link
 * ConfigLoader} from defaults, a file, environment variables and flags. Immutable.
 */
public record VeilConfig(
    Http http,
    Grpc grpc,
    Path dataDir,
    String db,
    ApiProfile profile,
    int bucketCount,
    double dailyRotationFraction,
    Duration jobInterval,
    Duration syncInterval,
    TokenLifetimes tokens,
    KeyPolicy keys,
    String testEmail,
    Limits limits,
    List<String> corsOrigins,
    boolean accessLog,
    Demo demo,
    Map<String, String> settings) {

  /** Every setting's effective value as text, with secrets (a database password) redacted: safe to log. */
  public VeilConfig {
    settings = Map.copyOf(settings);
  }

  /** The public HTTP listener. */
  public record Http(String host, int port, Duration headerTimeout, Duration idleTimeout) {}

  /** The admin gRPC listener. */
  public record Grpc(String host, int port, int maxMessageBytes) {}

  /** The demo publisher site of {@code veil serve --demo}, on its own port beside the API. */
  public record Demo(boolean enabled, int port) {}

  /** Request limits: body bytes, header bytes, identifiers per map batch, requests/s per client (0 = off). */
  public record Limits(int maxBodyBytes, int maxHeaderBytes, int maxBatchSize, int rateLimitPerSecond) {}
}
