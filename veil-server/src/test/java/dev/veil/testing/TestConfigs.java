package dev.veil.testing;

import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import java.util.HashMap;
import java.util.Map;

/**
 * Configurations for tests: ephemeral ports on loopback, a small bucket count, overrides by key.
 */
public final class TestConfigs {
  /** The salt bucket count of test configurations. */
  public static final int BUCKETS = 64;

  private TestConfigs() {}

  /**
   * Defaults with ephemeral ports (public, admin and console) and {@value #BUCKETS} buckets, then
   * {@code keyValues} (key, value, ...).
   */
  public static VeilConfig config(String... keyValues) {
    Map<String, String> flags = new HashMap<>();
    flags.put("http.port", "0");
    flags.put("grpc.port", "0");
    flags.put("console.port", "0");
    flags.put("salt.buckets", Integer.toString(BUCKETS));
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      flags.put(keyValues[i], keyValues[i + 1]);
    }
    return ConfigLoader.load(null, Map.of(), flags);
  }
}
