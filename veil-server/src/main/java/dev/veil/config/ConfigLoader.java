package dev.veil.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.veil.common.ApiProfile;
import dev.veil.common.FileProblems;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.core.identity.InvalidIdentifierException;
import dev.veil.key.KeyPolicy;
import dev.veil.salt.SaltRotationPolicy;
import dev.veil.site.SharingPolicy;
import dev.veil.token.TokenLifetimes;
import dev.veil.webhook.DeliverySettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Builds a {@link VeilConfig} from four layers, each overriding the one before: built-in defaults,
 * a file (YAML, nested or flat keys, or {@code .properties}), environment variables ({@code
 * VEIL_HTTP_PORT} for {@code http.port}: upper case, dots and dashes as underscores) and flags
 * ({@code --set key=value} and the shortcuts of {@code veil serve}). Unknown keys and bad values
 * fail with the key's name.
 */
public final class ConfigLoader {
  /**
   * The least {@code limits.stream-buffer-bytes}: room for two chunks of a streamed answer (32 KiB
   * each).
   */
  static final int STREAM_BUFFER_MIN = 64 * 1024;

  /** Every setting with its default, in documentation order. */
  public static final Map<String, String> DEFAULTS = defaults();

  private ConfigLoader() {}

  private static Map<String, String> defaults() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("http.host", "127.0.0.1");
    d.put("http.port", "8080");
    d.put("http.header-timeout", "10s");
    d.put("http.idle-timeout", "60s");
    d.put("http.drain-delay", "0s");
    d.put("http.shutdown-timeout", "30s");
    d.put("http.stream-stall-timeout", "30s");
    d.put("grpc.host", "127.0.0.1");
    d.put("grpc.port", "9090");
    d.put("grpc.max-message-bytes", "4194304");
    d.put("data.dir", "./data");
    d.put("db", "");
    d.put("db.timeout", "5s");
    d.put("api.profile", "veil");
    d.put("salt.buckets", "1048576");
    d.put("salt.daily-rotation-fraction", "1/365");
    d.put("salt.rotation-period", "1d");
    d.put("jobs.interval", "1m");
    d.put("sync.interval", "1s");
    d.put("sync.max-staleness", "10m");
    d.put("token.advertising-lifetime", "72h");
    d.put("token.refresh-from", "1h");
    d.put("token.refresh-lifetime", "30d");
    d.put("token.sharing-lifetime", "72h");
    d.put("token.allowed-clock-skew", "30m");
    d.put("keys.rotation-period", "1d");
    d.put("keys.activation-delay", "1h");
    d.put("test.email", "validate@example.com");
    d.put("limits.max-body-bytes", "1048576");
    d.put("limits.max-header-bytes", "16384");
    d.put("limits.max-batch-size", "5000");
    d.put("limits.rate-limit-per-second", "0");
    d.put("limits.stream-buffer-bytes", "33554432");
    d.put("limits.max-connections", "auto");
    d.put("http.body-timeout", "30s");
    d.put("grpc.idle-timeout", "60s");
    d.put("grpc.max-connection-age", "1h");
    d.put("grpc.max-connection-age-grace", "1m");
    d.put("cors.allowed-origins", "*");
    d.put("log.access", "false");
    d.put("demo.enabled", "false");
    d.put("demo.port", "8081");
    d.put("deductions.expiry-interval", "5s");
    d.put("deductions.watch-interval", "250ms");
    d.put("console.enabled", "true");
    d.put("console.host", "127.0.0.1");
    d.put("console.port", "9091");
    d.put("console.session-idle-timeout", "15m");
    d.put("console.session-lifetime", "8h");
    d.put("webhook.poll-interval", "500ms");
    d.put("webhook.timeout", "10s");
    d.put("webhook.max-backoff", "1m");
    d.put("webhook.concurrency", "16");
    d.put("webhook.batch-size", "1000");
    return java.util.Collections.unmodifiableMap(d);
  }

  /** Loads and validates; {@code file} may be null. */
  public static VeilConfig load(Path file, Map<String, String> env, Map<String, String> flags) {
    Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
    if (file != null) {
      values.putAll(checked(readFile(file), "in " + file));
    }
    for (String key : DEFAULTS.keySet()) {
      String envName = "VEIL_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
      if (env.containsKey(envName)) {
        values.put(key, env.get(envName));
      }
    }
    values.putAll(checked(flags, "given as a flag"));
    return build(values);
  }

  /**
   * The settings as a map, safe to log: a password in the database URL is replaced (in the user
   * info up to its last '@', as the store reads it, so a password holding an '@' or '/' is hidden
   * whole), and the test identity's address is hidden (logs never carry an email address, not even
   * a reserved one).
   */
  public static Map<String, String> redacted(Map<String, String> values) {
    Map<String, String> out = new LinkedHashMap<>(values);
    out.computeIfPresent("test.email", (k, v) -> "<redacted>");
    out.computeIfPresent(
        "db",
        (k, v) ->
            v.replaceAll("(?i)(password=)[^&]*", "$1***")
                .replaceAll("//([^:/@?]*):[^?]*@", "//$1:***@"));
    return out;
  }

  private static Map<String, String> checked(Map<String, String> values, String where) {
    for (String key : values.keySet()) {
      if (!DEFAULTS.containsKey(key)) {
        throw new ConfigException("unknown setting '" + key + "' " + where);
      }
    }
    return values;
  }

  private static Map<String, String> readFile(Path file) {
    if (Files.isDirectory(
        file)) { // opens, then fails on the first read, which the YAML parser reports as bad YAML
      throw new ConfigException("cannot read configuration file: is a directory: " + file);
    }
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      Map<String, String> out = new LinkedHashMap<>();
      if (file.toString().endsWith(".properties")) {
        Properties p =
            new Properties() {
              @Override
              public synchronized Object put(Object key, Object value) {
                Object before = super.put(key, value);
                if (before != null) {
                  throw new ConfigException(
                      "setting '" + key + "' is given twice in " + file + "; give it once");
                }
                return null;
              }
            };
        p.load(reader);
        p.forEach((k, v) -> out.put(k.toString(), v.toString()));
      } else {
        // YAML forbids a key twice in one mapping; without the check the later one silently
        // replaces
        // the earlier (a second "http:" section drops every setting of the first).
        JsonNode root =
            new ObjectMapper(new YAMLFactory())
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .readTree(reader);
        if (root != null && !root.isMissingNode() && !root.isNull()) {
          if (!root.isObject()) {
            throw new ConfigException(
                "configuration file " + file + " must hold a mapping of settings");
          }
          flatten("", root, out, file);
        }
      }
      return out;
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new ConfigException(
          "configuration file "
              + file
              + " is not valid YAML"
              + (at == null
                  ? ""
                  : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")
              + ": "
              + e.getOriginalMessage().strip());
    } catch (FileSystemException e) {
      throw new ConfigException("cannot read configuration file: " + FileProblems.describe(e));
    } catch (IOException e) {
      throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage());
    }
  }

  /** Nested and dotted keys both name settings; one setting written both ways is refused. */
  private static void flatten(String prefix, JsonNode node, Map<String, String> out, Path file) {
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        flatten(prefix.isEmpty() ? f.getKey() : prefix + "." + f.getKey(), f.getValue(), out, file);
      }
      return;
    }
    String value;
    if (node.isArray()) {
      StringBuilder sb = new StringBuilder();
      node.forEach(n -> sb.append(sb.length() == 0 ? "" : ",").append(n.asText()));
      value = sb.toString();
    } else {
      value = node.isNull() ? "" : node.asText();
    }
    if (out.put(prefix, value) != null) {
      throw new ConfigException(
          "setting '" + prefix + "' is given twice in " + file + "; give it once");
    }
  }

  /**
   * Whether {@code db} names the embedded store without a file ({@code ""}, {@code sqlite:}, …):
   * then it lives in data.dir.
   */
  private static boolean embeddedWithoutPath(String db) {
    return db.replaceFirst("^(jdbc:sqlite:|sqlite:(//)?)", "").isEmpty();
  }

  private static VeilConfig build(Map<String, String> v) {
    Settings s = new Settings(v);
    Duration adLifetime = s.duration("token.advertising-lifetime");
    Duration refreshFrom = s.duration("token.refresh-from");
    Duration refreshLifetime = s.duration("token.refresh-lifetime");
    TokenLifetimes tokens;
    try {
      tokens = new TokenLifetimes(adLifetime, refreshFrom, refreshLifetime);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "token.refresh-from, token.advertising-lifetime, token.refresh-lifetime: "
              + e.getMessage());
    }
    Duration syncInterval = s.positiveDuration("sync.interval");
    Duration maxStaleness = s.positiveDuration("sync.max-staleness");
    Duration activationDelay = s.duration("keys.activation-delay");
    checkPropagation(syncInterval, maxStaleness, activationDelay);
    Duration sharingLifetime =
        s.atMost(s.positiveDuration("token.sharing-lifetime"), "token.sharing-lifetime", "365d");
    SharingPolicy sharing =
        new SharingPolicy(
            sharingLifetime,
            adLifetime,
            s.atMost(s.duration("token.allowed-clock-skew"), "token.allowed-clock-skew", "1d"));
    // Master and site keys decrypt advertising tokens and the tokens sharers encrypt.
    Duration siteTokenLifetime =
        sharingLifetime.compareTo(adLifetime) > 0 ? sharingLifetime : adLifetime;
    KeyPolicy keys;
    try {
      keys =
          new KeyPolicy(
              s.duration("keys.rotation-period"),
              activationDelay,
              siteTokenLifetime,
              refreshLifetime);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("keys.rotation-period: " + e.getMessage());
    }
    Duration rotationPeriod = s.atLeastOneSecond("salt.rotation-period");
    // At least 1s: connecting is bounded in whole seconds, and a request's write keeps part of it
    // for checking a pooled connection.
    Duration dbTimeout = s.atMost(s.atLeastOneSecond("db.timeout"), "db.timeout", "10m");
    Duration drainDelay = s.atMost(s.duration("http.drain-delay"), "http.drain-delay", "5m");
    Duration shutdownTimeout =
        s.atMost(s.positiveDuration("http.shutdown-timeout"), "http.shutdown-timeout", "5m");
    Duration streamStallTimeout =
        s.atMost(
            s.positiveDuration("http.stream-stall-timeout"), "http.stream-stall-timeout", "10m");
    Path dataDir = Path.of(s.text("data.dir", false));
    String db = s.text("db", true);
    return new VeilConfig(
        new VeilConfig.Http(
            s.text("http.host", false),
            s.port("http.port"),
            s.duration("http.header-timeout"),
            s.duration("http.idle-timeout"),
            drainDelay,
            shutdownTimeout,
            streamStallTimeout),
        new VeilConfig.Grpc(
            s.text("grpc.host", false),
            s.port("grpc.port"),
            s.intIn("grpc.max-message-bytes", 1024, Integer.MAX_VALUE)),
        dataDir,
        embeddedWithoutPath(db) ? dataDir.resolve("veil.db").toString() : db,
        dbTimeout,
        s.profile("api.profile"),
        s.intIn("salt.buckets", 1, 1 << 24),
        new SaltRotationPolicy(s.fraction("salt.daily-rotation-fraction"), rotationPeriod),
        s.atLeastOneSecond("jobs.interval"),
        syncInterval,
        maxStaleness,
        tokens,
        keys,
        sharing,
        s.email("test.email"),
        new VeilConfig.Limits(
            s.intIn("limits.max-body-bytes", 1024, 256 << 20),
            s.intIn("limits.max-header-bytes", 1024, 1 << 20),
            s.intIn("limits.max-batch-size", 1, 1_000_000),
            s.intIn("limits.rate-limit-per-second", 0, Integer.MAX_VALUE),
            s.intIn("limits.stream-buffer-bytes", STREAM_BUFFER_MIN, 1 << 30)),
        Arrays.stream(s.text("cors.allowed-origins", true).split(","))
            .map(String::strip)
            .filter(o -> !o.isEmpty())
            .toList(),
        s.bool("log.access"),
        new VeilConfig.Demo(s.bool("demo.enabled"), s.port("demo.port")),
        console(s),
        connections(s),
        webhooks(s),
        new VeilConfig.Deductions(
            s.atMost(
                s.positiveDuration("deductions.expiry-interval"),
                "deductions.expiry-interval",
                "1h"),
            s.atMost(
                s.positiveDuration("deductions.watch-interval"),
                "deductions.watch-interval",
                "1m")),
        redacted(v));
  }

  /** The web console: {@code console.*}. */
  private static VeilConfig.Console console(Settings s) {
    Duration idle =
        s.atMost(
            s.atLeastOneSecond("console.session-idle-timeout"),
            "console.session-idle-timeout",
            "1d");
    Duration lifetime =
        s.atMost(s.atLeastOneSecond("console.session-lifetime"), "console.session-lifetime", "7d");
    if (lifetime.compareTo(idle) < 0) {
      throw new ConfigException(
          "console.session-lifetime ("
              + DurationFormat.format(lifetime)
              + ") must not be shorter than console.session-idle-timeout ("
              + DurationFormat.format(idle)
              + ")");
    }
    return new VeilConfig.Console(
        s.bool("console.enabled"),
        s.text("console.host", false),
        s.port("console.port"),
        idle,
        lifetime);
  }

  /** Webhook delivery: {@code webhook.*}. */
  private static DeliverySettings webhooks(Settings s) {
    return new DeliverySettings(
        s.atMost(s.positiveDuration("webhook.poll-interval"), "webhook.poll-interval", "1m"),
        s.atMost(s.atLeastOneSecond("webhook.timeout"), "webhook.timeout", "5m"),
        s.atMost(s.atLeastOneSecond("webhook.max-backoff"), "webhook.max-backoff", "1d"),
        s.intIn("webhook.concurrency", 1, 256),
        s.intIn("webhook.batch-size", 1, 100_000));
  }

  /** The bounds on connections: {@code limits.max-connections} and the connection timeouts. */
  private static VeilConfig.Connections connections(Settings s) {
    return new VeilConfig.Connections(
        s.maxConnections("limits.max-connections"),
        s.atMost(s.positiveDuration("http.body-timeout"), "http.body-timeout", "1h"),
        s.atMost(s.atLeastOneSecond("grpc.idle-timeout"), "grpc.idle-timeout", "1d"),
        s.atMost(s.atLeastOneSecond("grpc.max-connection-age"), "grpc.max-connection-age", "30d"),
        s.atMost(
            s.duration("grpc.max-connection-age-grace"), "grpc.max-connection-age-grace", "1h"));
  }

  /**
   * Keys must reach every node that still reports ready before they activate (docs/spec.md 3, 8): a
   * healthy node learns a write within the propagation bound, and a node cut off from the store
   * stays ready while its data is younger than {@code sync.max-staleness}. So the staleness bound
   * must allow for normal propagation, and the activation delay must exceed both.
   */
  private static void checkPropagation(
      Duration syncInterval, Duration maxStaleness, Duration activationDelay) {
    Duration bound = VeilConfig.propagationBound(syncInterval);
    String boundText =
        "the propagation bound 2 × sync.interval + "
            + DurationFormat.format(VeilConfig.PROPAGATION_MARGIN)
            + " = "
            + DurationFormat.format(bound);
    if (maxStaleness.compareTo(bound) < 0) {
      throw new ConfigException(
          "sync.max-staleness ("
              + DurationFormat.format(maxStaleness)
              + ") must be at least "
              + boundText
              + ", or healthy nodes between two polls would report themselves stale");
    }
    if (activationDelay.compareTo(bound) < 0) {
      throw new ConfigException(
          "keys.activation-delay ("
              + DurationFormat.format(activationDelay)
              + ") must be at least "
              + boundText
              + ", so that every node has a new key before it is used");
    }
    if (activationDelay.compareTo(maxStaleness) <= 0) {
      throw new ConfigException(
          "keys.activation-delay ("
              + DurationFormat.format(activationDelay)
              + ") must be longer than sync.max-staleness ("
              + DurationFormat.format(maxStaleness)
              + "): a node that has not synced for up to sync.max-staleness still reports ready,"
              + " and must already know every key that is active");
    }
  }

  /** Typed access to raw values; every error names the key. */
  private record Settings(Map<String, String> values) {
    String text(String key, boolean mayBeEmpty) {
      String v = values.get(key).strip();
      if (v.isEmpty() && !mayBeEmpty) {
        throw new ConfigException(key + " must not be empty");
      }
      return v;
    }

    int intIn(String key, int min, int max) {
      try {
        int v = Integer.parseInt(text(key, false));
        if (v < min || v > max) {
          throw new ConfigException(key + " must be between " + min + " and " + max + ", got " + v);
        }
        return v;
      } catch (NumberFormatException e) {
        throw new ConfigException(key + " must be an integer, got '" + values.get(key) + "'");
      }
    }

    /** {@code auto} (0: what the file-descriptor limit allows) or a number of connections. */
    int maxConnections(String key) {
      String v = text(key, false);
      if (v.equalsIgnoreCase("auto")) {
        return 0;
      }
      try {
        return intIn(key, 1, 10_000_000);
      } catch (ConfigException e) {
        throw new ConfigException(
            key + " must be auto or an integer between 1 and 10000000, got '" + v + "'");
      }
    }

    int port(String key) {
      return intIn(key, 0, 65535);
    }

    boolean bool(String key) {
      String v = text(key, false).toLowerCase(Locale.ROOT);
      if (!List.of("true", "false").contains(v)) {
        throw new ConfigException(key + " must be true or false, got '" + values.get(key) + "'");
      }
      return v.equals("true");
    }

    ApiProfile profile(String key) {
      try {
        return ApiProfile.valueOf(text(key, false).toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(key + " must be veil or uid2, got '" + values.get(key) + "'");
      }
    }

    double fraction(String key) {
      String v = text(key, false);
      try {
        int slash = v.indexOf('/');
        double f =
            slash < 0
                ? Double.parseDouble(v)
                : Double.parseDouble(v.substring(0, slash).strip())
                    / Double.parseDouble(v.substring(slash + 1).strip());
        if (!(f > 0 && f <= 1)) {
          throw new ConfigException(key + " must be in (0, 1], got '" + v + "'");
        }
        return f;
      } catch (NumberFormatException e) {
        throw new ConfigException(key + " must be a fraction like 1/365 or 0.01, got '" + v + "'");
      }
    }

    /**
     * An email address the identity code accepts; the value is not repeated (it is redacted in the
     * config line).
     */
    String email(String key) {
      String v = text(key, false);
      try {
        IdentityHash.parse(IdentityInput.EMAIL, v);
      } catch (InvalidIdentifierException e) {
        throw new ConfigException(key + " must be a valid email address");
      }
      return v;
    }

    Duration atLeastOneSecond(String key) {
      Duration d = duration(key);
      if (d.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new ConfigException(key + " must be at least 1s, got '" + values.get(key) + "'");
      }
      return d;
    }

    /**
     * {@code d}, the value of {@code key}, if it is at most {@code max} (a duration in the
     * settings' syntax).
     */
    Duration atMost(Duration d, String key, String max) {
      if (d.compareTo(DurationFormat.parse(max)) > 0) {
        throw new ConfigException(
            key + " must be at most " + max + ", got '" + text(key, false) + "'");
      }
      return d;
    }

    Duration positiveDuration(String key) {
      Duration d = duration(key);
      if (d.isZero()) {
        throw new ConfigException(key + " must be greater than zero");
      }
      return d;
    }

    Duration duration(String key) {
      String v = text(key, false);
      try {
        Duration d = DurationFormat.parse(v);
        if (d.isNegative()) {
          throw new ConfigException(key + " must not be negative");
        }
        return d;
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            key + " must be a duration like 500ms, 10s, 5m, 72h, 30d or PT1H, got '" + v + "'");
      }
    }
  }
}
