package dev.veil.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.ApiProfile;
import dev.veil.salt.SaltRotationPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  @Test
  void defaults_matchTheSpec() {
    VeilConfig c = ConfigLoader.load(null, Map.of(), Map.of());
    assertThat(c.http().port()).isEqualTo(8080);
    assertThat(c.grpc().port()).isEqualTo(9090);
    assertThat(c.bucketCount()).isEqualTo(1_048_576);
    assertThat(c.tokens().advertising()).isEqualTo(Duration.ofDays(3));
    assertThat(c.tokens().refreshFrom()).isEqualTo(Duration.ofHours(1));
    assertThat(c.tokens().refresh()).isEqualTo(Duration.ofDays(30));
    assertThat(c.limits().maxBatchSize()).isEqualTo(5000);
    assertThat(c.limits().maxBodyBytes()).isEqualTo(1 << 20);
    assertThat(c.profile()).isEqualTo(ApiProfile.VEIL);
    assertThat(c.saltRotation()).isEqualTo(SaltRotationPolicy.daily());
    assertThat(c.syncInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.syncMaxStaleness()).isEqualTo(Duration.ofMinutes(10));
    assertThat(c.dbTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.propagationBound()).isEqualTo(Duration.ofSeconds(7));
    assertThat(c.db()).endsWith("veil.db");
  }

  @Test
  void layers_fileThenEnvThenFlags() throws IOException {
    Path file = dir.resolve("veil.yaml");
    Files.writeString(file, "http:\n  port: 8001\ngrpc:\n  port: 9001\napi:\n  profile: uid2\n");
    VeilConfig c =
        ConfigLoader.load(
            file,
            Map.of("VEIL_GRPC_PORT", "9002", "VEIL_SALT_BUCKETS", "128"),
            Map.of("salt.buckets", "256"));
    assertThat(c.http().port()).isEqualTo(8001);
    assertThat(c.grpc().port()).isEqualTo(9002);
    assertThat(c.bucketCount()).isEqualTo(256);
    assertThat(c.profile()).isEqualTo(ApiProfile.UID2);
  }

  @Test
  void propertiesFile_isAccepted() throws IOException {
    Path file = dir.resolve("veil.properties");
    Files.writeString(
        file, "token.refresh-from=5s\ntoken.advertising-lifetime=10s\ntoken.refresh-lifetime=1m\n");
    VeilConfig c = ConfigLoader.load(file, Map.of(), Map.of());
    assertThat(c.tokens().refreshFrom()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aYamlSectionGivenTwice_isRefused_notHalfOfItDropped() throws IOException {
    Path file = dir.resolve("veil.yaml");
    Files.writeString(
        file,
        "http:\n  port: 8001\n  host: 0.0.0.0\ngrpc:\n  port: 9001\nhttp:\n  idle-timeout: 30s\n");
    assertThatThrownBy(() -> ConfigLoader.load(file, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("http")
        .hasMessageContaining("line 6");
  }

  @Test
  void aSettingWrittenNestedAndDotted_isRefusedNamingIt() throws IOException {
    Path file = dir.resolve("veil.yml");
    Files.writeString(file, "http.port: 8001\nhttp:\n  port: 8002\n");
    assertThatThrownBy(() -> ConfigLoader.load(file, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'http.port' is given twice");
  }

  @Test
  void aPropertyGivenTwice_isRefusedNamingIt() throws IOException {
    Path file = dir.resolve("veil.properties");
    Files.writeString(file, "http.port=8001\ngrpc.port=9001\nhttp.port = 8002\n");
    assertThatThrownBy(() -> ConfigLoader.load(file, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'http.port' is given twice");
  }

  @Test
  void badValues_failNamingTheSetting() {
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("http.port", "eighty")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("http.port");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("http.prot", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("http.prot");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("api.profile", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("api.profile");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("token.refresh-from", "100h")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("token.refresh-from");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("salt.daily-rotation-fraction", "2")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("salt.daily-rotation-fraction");
  }

  @Test
  void durationsThatAreNotOrAreAbsurd_failNamingTheSetting_neverWithAParserException() {
    for (String bad :
        new String[] {
          "P1Y", "PT", "PTxyz", "P", "99999999999999999d", "106751991167d", "36501d", "5x"
        }) {
      assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("http.idle-timeout", bad)))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("http.idle-timeout must be a duration");
    }
    assertThat(
            ConfigLoader.load(null, Map.of(), Map.of("token.refresh-lifetime", "36500d"))
                .tokens()
                .refresh())
        .isEqualTo(java.time.Duration.ofDays(36_500));
  }

  @Test
  void theJobsInterval_isAtLeastASecond() {
    for (String bad : new String[] {"0s", "999ms"}) {
      assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("jobs.interval", bad)))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessage("jobs.interval must be at least 1s, got '" + bad + "'");
    }
    assertThat(ConfigLoader.load(null, Map.of(), Map.of("jobs.interval", "1s")).jobInterval())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void theWebhookSettings_haveTheirDefaults_areRead_andBadOnesAreRefusedByName() {
    assertThat(ConfigLoader.load(null, Map.of(), Map.of()).webhooks())
        .isEqualTo(
            new dev.veil.webhook.DeliverySettings(
                Duration.ofMillis(500), Duration.ofSeconds(10), Duration.ofMinutes(1), 16, 1000));
    assertThat(
            ConfigLoader.load(
                    null,
                    Map.of("VEIL_WEBHOOK_CONCURRENCY", "4"),
                    Map.of("webhook.poll-interval", "200ms", "webhook.max-backoff", "5m"))
                .webhooks())
        .isEqualTo(
            new dev.veil.webhook.DeliverySettings(
                Duration.ofMillis(200), Duration.ofSeconds(10), Duration.ofMinutes(5), 4, 1000));
    for (Map<String, String> bad :
        List.of(
            Map.of("webhook.poll-interval", "0s"),
            Map.of("webhook.timeout", "500ms"),
            Map.of("webhook.max-backoff", "2d"),
            Map.of("webhook.concurrency", "0"),
            Map.of("webhook.batch-size", "many"))) {
      assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), bad))
          .as(bad.toString())
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith(bad.keySet().iterator().next());
    }
  }

  @Test
  void theConnectionBounds_haveTheirDefaults_andAreRead() {
    VeilConfig.Connections defaults = ConfigLoader.load(null, Map.of(), Map.of()).connections();
    assertThat(defaults)
        .isEqualTo(
            new VeilConfig.Connections(
                0,
                Duration.ofSeconds(30),
                Duration.ofSeconds(60),
                Duration.ofHours(1),
                Duration.ofMinutes(1)));

    VeilConfig.Connections set =
        ConfigLoader.load(
                null,
                Map.of("VEIL_LIMITS_MAX_CONNECTIONS", "500"),
                Map.of(
                    "http.body-timeout",
                    "5s",
                    "grpc.idle-timeout",
                    "2m",
                    "grpc.max-connection-age",
                    "30m",
                    "grpc.max-connection-age-grace",
                    "0s"))
            .connections();
    assertThat(set)
        .isEqualTo(
            new VeilConfig.Connections(
                500,
                Duration.ofSeconds(5),
                Duration.ofMinutes(2),
                Duration.ofMinutes(30),
                Duration.ZERO));
    assertThat(
            ConfigLoader.load(null, Map.of(), Map.of("limits.max-connections", "AUTO"))
                .connections()
                .maxConnections())
        .isZero();
  }

  @Test
  void connectionBoundsOutOfRange_failNamingTheSetting() {
    Map<String, String> bad = new java.util.LinkedHashMap<>();
    bad.put(
        "limits.max-connections",
        "limits.max-connections must be auto or an integer between 1 and 10000000, got '0'");
    bad.put("http.body-timeout", "http.body-timeout must be greater than zero");
    bad.put("grpc.idle-timeout", "grpc.idle-timeout must be at least 1s, got '0s'");
    bad.put("grpc.max-connection-age", "grpc.max-connection-age must be at least 1s, got '0s'");
    bad.forEach(
        (key, message) ->
            assertThatThrownBy(
                    () ->
                        ConfigLoader.load(
                            null,
                            Map.of(),
                            Map.of(key, key.equals("limits.max-connections") ? "0" : "0s")))
                .as(key)
                .isInstanceOf(ConfigException.class)
                .hasMessage(message));
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("limits.max-connections", "many")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "limits.max-connections must be auto or an integer between 1 and 10000000, got 'many'");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("http.body-timeout", "2h")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("http.body-timeout must be at most 1h, got '2h'");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("grpc.max-connection-age-grace", "2h")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("grpc.max-connection-age-grace must be at most 1h, got '2h'");
  }

  @Test
  void aTestEmailThatIsNotOne_failsNamingTheSetting_withoutRepeatingIt() {
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("test.email", "notanemail")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("test.email must be a valid email address");
  }

  @Test
  void anEmbeddedStoreWithoutAPath_livesInTheDataDirectory() {
    for (String db : new String[] {"", "sqlite:", "sqlite://", "jdbc:sqlite:"}) {
      assertThat(ConfigLoader.load(null, Map.of(), Map.of("db", db, "data.dir", "/srv/veil")).db())
          .as(db)
          .isEqualTo(Path.of("/srv/veil", "veil.db").toString());
    }
    assertThat(ConfigLoader.load(null, Map.of(), Map.of("db", "sqlite:x.db")).db())
        .isEqualTo("sqlite:x.db");
  }

  @Test
  void aFileThatCannotBeRead_saysWhereAndWhy() throws IOException {
    Path broken = Files.writeString(dir.resolve("broken.yaml"), "http:\n  port: [oops\n");

    assertThatThrownBy(() -> ConfigLoader.load(broken, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "configuration file " + broken + " is not valid YAML (line 2, column ")
        .hasMessageNotContaining("[Source:");
    assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("missing.yaml"), Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("cannot read configuration file: no such file: " + dir.resolve("missing.yaml"));
    Path directory = Files.createDirectory(dir.resolve("conf.yaml"));
    assertThatThrownBy(() -> ConfigLoader.load(directory, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("cannot read configuration file: is a directory: " + directory);
  }

  @Test
  void demo_isOffByDefault_andTakesItsPortFromANestedFile() throws IOException {
    VeilConfig defaults = ConfigLoader.load(null, Map.of(), Map.of());
    assertThat(defaults.demo()).isEqualTo(new VeilConfig.Demo(false, 8081));
    Path file = dir.resolve("demo.yaml");
    Files.writeString(file, "demo:\n  enabled: true\n  port: 8181\n");
    assertThat(ConfigLoader.load(file, Map.of(), Map.of()).demo())
        .isEqualTo(new VeilConfig.Demo(true, 8181));
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("demo.port", "70000")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("demo.port");
  }

  @Test
  void redacted_hidesDatabasePasswords() {
    Map<String, String> r =
        ConfigLoader.redacted(Map.of("db", "postgresql://veil:s3cret@db:5432/veil?password=x"));
    assertThat(r.get("db")).doesNotContain("s3cret").doesNotContain("=x");
  }

  @Test
  void redacted_hidesAPasswordHoldingAnAtSignOrASlash_whole() {
    assertThat(
            ConfigLoader.redacted(Map.of("db", "postgresql://veil:s3cr@tPW@db:5432/veil"))
                .get("db"))
        .isEqualTo("postgresql://veil:***@db:5432/veil");
    assertThat(
            ConfigLoader.redacted(
                    Map.of("db", "postgresql://veil:s3/cr@tPW@db/veil?sslmode=require"))
                .get("db"))
        .isEqualTo("postgresql://veil:***@db/veil?sslmode=require");
    assertThat(
            ConfigLoader.redacted(Map.of("db", "postgresql://db:5432/veil?user=me@corp")).get("db"))
        .isEqualTo("postgresql://db:5432/veil?user=me@corp");
  }

  @Test
  void settings_carryEveryEffectiveValue_withTheDatabasePasswordRedacted() {
    VeilConfig c =
        ConfigLoader.load(
            null, Map.of(), Map.of("db", "postgresql://veil:pw123@db/veil", "http.port", "81"));
    assertThat(c.settings())
        .containsEntry("http.port", "81")
        .containsKeys(ConfigLoader.DEFAULTS.keySet().toArray(String[]::new));
    assertThat(c.settings().get("db")).doesNotContain("pw123");
  }

  @Test
  void multiNodeSettings_parseTogether() {
    VeilConfig c =
        ConfigLoader.load(
            null,
            Map.of(),
            Map.of(
                "sync.interval",
                "500ms",
                "sync.max-staleness",
                "20s",
                "keys.activation-delay",
                "25s",
                "keys.rotation-period",
                "1m",
                "salt.rotation-period",
                "5s",
                "salt.daily-rotation-fraction",
                "1/16",
                "db.timeout",
                "3s"));
    assertThat(c.propagationBound()).isEqualTo(Duration.ofSeconds(6));
    assertThat(c.syncMaxStaleness()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.keys().activationDelay()).isEqualTo(Duration.ofSeconds(25));
    assertThat(c.saltRotation()).isEqualTo(new SaltRotationPolicy(1.0 / 16, Duration.ofSeconds(5)));
    assertThat(c.dbTimeout()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void activationDelay_belowThePropagationBound_failsNamingTheSetting() {
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("keys.activation-delay", "6s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("keys.activation-delay (6s) must be at least the propagation bound")
        .hasMessageContaining("2 × sync.interval + 5s = 7s");
  }

  @Test
  void activationDelay_notLongerThanMaxStaleness_failsNamingBothSettings() {
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("keys.activation-delay", "10m")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "keys.activation-delay (10m) must be longer than sync.max-staleness (10m)");
    assertThat(
            ConfigLoader.load(
                    null,
                    Map.of(),
                    Map.of("keys.activation-delay", "11m", "keys.rotation-period", "1d"))
                .keys()
                .activationDelay())
        .isEqualTo(Duration.ofMinutes(11));
  }

  @Test
  void maxStaleness_belowThePropagationBound_failsNamingTheSetting() {
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    null, Map.of(), Map.of("sync.interval", "10s", "sync.max-staleness", "20s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("sync.max-staleness (20s) must be at least the propagation bound")
        .hasMessageContaining("= 25s");
  }

  @Test
  void drainDelay_isOffByDefault_andBounded() {
    assertThat(ConfigLoader.load(null, Map.of(), Map.of()).http().drainDelay()).isZero();
    assertThat(
            ConfigLoader.load(null, Map.of("VEIL_HTTP_DRAIN_DELAY", "15s"), Map.of())
                .http()
                .drainDelay())
        .isEqualTo(java.time.Duration.ofSeconds(15));
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("http.drain-delay", "1h")))
        .hasMessageContaining("http.drain-delay");
  }

  @Test
  void streamedAnswers_haveAByteBudgetAndAStallTimeout_bothBounded() {
    VeilConfig defaults = ConfigLoader.load(null, Map.of(), Map.of());
    assertThat(defaults.limits().streamBufferBytes()).isEqualTo(32 << 20);
    assertThat(defaults.http().streamStallTimeout()).isEqualTo(Duration.ofSeconds(30));
    VeilConfig set =
        ConfigLoader.load(
            null,
            Map.of("VEIL_LIMITS_STREAM_BUFFER_BYTES", "65536"),
            Map.of("http.stream-stall-timeout", "2s"));
    assertThat(set.limits().streamBufferBytes()).isEqualTo(65536);
    assertThat(set.http().streamStallTimeout()).isEqualTo(Duration.ofSeconds(2));

    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("limits.stream-buffer-bytes", "65535")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("limits.stream-buffer-bytes must be between 65536 and 1073741824, got 65535");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("limits.stream-buffer-bytes", "2g")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("limits.stream-buffer-bytes must be an integer");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("http.stream-stall-timeout", "0s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("http.stream-stall-timeout must be greater than zero");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("http.stream-stall-timeout", "11m")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("http.stream-stall-timeout must be at most 10m");
  }

  @Test
  void syncAndDatabaseTimings_mustBePositiveAndSane() {
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("sync.interval", "0s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sync.interval must be greater than zero");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("sync.max-staleness", "soon")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sync.max-staleness");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("db.timeout", "0ms")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("db.timeout");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("db.timeout", "999ms")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("db.timeout must be at least 1s, got '999ms'");
    assertThat(ConfigLoader.load(null, Map.of(), Map.of("db.timeout", "1s")).dbTimeout())
        .isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of(), Map.of("db.timeout", "11m")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("db.timeout must be at most 10m");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("salt.rotation-period", "500ms")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("salt.rotation-period must be at least 1s");
  }

  @Test
  void durations_formatInTheirLargestWholeUnit() {
    assertThat(DurationFormat.format(Duration.ofSeconds(7))).isEqualTo("7s");
    assertThat(DurationFormat.format(Duration.ofMinutes(10))).isEqualTo("10m");
    assertThat(DurationFormat.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(DurationFormat.format(Duration.ofDays(2))).isEqualTo("2d");
    assertThat(DurationFormat.format(Duration.ZERO)).isEqualTo("0ms");
    assertThat(DurationFormat.parse(DurationFormat.format(Duration.ofHours(3))))
        .isEqualTo(Duration.ofHours(3));
  }

  @Test
  void console_isOnLoopbackPort9091_withSessionsOf15MinutesIdleAnd8Hours_byDefault() {
    VeilConfig.Console c = ConfigLoader.load(null, Map.of(), Map.of()).console();

    assertThat(c.enabled()).isTrue();
    assertThat(c.host()).isEqualTo("127.0.0.1");
    assertThat(c.port()).isEqualTo(9091);
    assertThat(c.idleTimeout()).isEqualTo(Duration.ofMinutes(15));
    assertThat(c.lifetime()).isEqualTo(Duration.ofHours(8));
  }

  @Test
  void console_settings_areParsed_andALifetimeShorterThanTheIdleTimeoutIsRefused() {
    VeilConfig.Console c =
        ConfigLoader.load(
                null,
                Map.of("VEIL_CONSOLE_ENABLED", "false"),
                Map.of("console.port", "0", "console.session-idle-timeout", "5m"))
            .console();
    assertThat(c.enabled()).isFalse();
    assertThat(c.port()).isZero();
    assertThat(c.idleTimeout()).isEqualTo(Duration.ofMinutes(5));

    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    null,
                    Map.of(),
                    Map.of("console.session-idle-timeout", "2h", "console.session-lifetime", "1h")))
        .hasMessageContaining("console.session-lifetime (1h) must not be shorter than")
        .hasMessageContaining("console.session-idle-timeout (2h)");
    assertThatThrownBy(
            () -> ConfigLoader.load(null, Map.of(), Map.of("console.session-lifetime", "30d")))
        .hasMessageContaining("console.session-lifetime must be at most 7d");
  }
}
