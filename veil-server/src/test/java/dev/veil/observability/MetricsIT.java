package dev.veil.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.server.VeilServer;
import dev.veil.testing.Http;
import dev.veil.testing.Http.Response;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.Scrape;
import dev.veil.testing.TestConfigs;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /metrics} of a real node (HTTP and admin gRPC listeners, in-memory stores): the JVM,
 * process and build families with sane values, business counters that move by exactly what a known
 * sequence of requests did, and the Grafana dashboard and Prometheus configuration in {@code
 * deploy/} against a real scrape.
 */
class MetricsIT {
  private static final Path DEPLOY =
      Path.of(System.getProperty("user.dir")).resolve("../deploy").normalize();
  private static final String LIST_CLIENTS =
      "protocol.identity.admin.v1.IdentityAdminApi/ListClients";

  /** Metric names in PromQL: every family Veil writes starts with one of these. */
  private static final Pattern METRIC = Pattern.compile("\\b(?:veil|jvm|process)_[a-zA-Z0-9_:]*");

  private static final MutableClock CLOCK = MutableClock.at("2026-03-01T12:00:00Z");
  private static VeilServer server;
  private static Http http;
  private static String adminKey;
  private static String generator;
  private static String mapper;
  private static String optOut;

  @BeforeAll
  static void start() {
    server = VeilServer.start(TestConfigs.config(), CLOCK, new InMemoryStores());
    http = new Http("http://127.0.0.1:" + server.httpPort());
    adminKey = server.bootstrapAdminKey().orElseThrow();
    generator = key(Role.GENERATOR);
    mapper = key(Role.MAPPER);
    optOut = key(Role.OPTOUT);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String key(Role role) {
    return server.services().clients().create("metrics " + role, 0, Set.of(role)).key().reveal();
  }

  private static Scrape scrape() {
    Response r = http.get("/metrics", null);
    assertThat(r.code()).isEqualTo(200);
    return Scrape.parse(r.body());
  }

  @Test
  void businessCounters_moveByExactlyWhatTheRequestsDid() throws InterruptedException {
    Scrape before = scrape();

    Response tokens = http.get("/v1/token/generate?email=metrics.user%40example.com", generator);
    assertThat(http.post("/v1/optout", optOut, "{\"email\":\"opted.out@example.com\"}").code())
        .isEqualTo(200);
    assertThat(http.get("/v1/token/generate?email=opted.out%40example.com", generator).status())
        .isEqualTo("optout");
    assertThat(http.get("/v1/token/generate?email=not-an-email", generator).code()).isEqualTo(400);
    String refreshToken = tokens.successBody().path("refresh_token").asText();
    assertThat(
            http.post("/v1/token/refresh", null, "{\"refresh_token\":\"" + refreshToken + "\"}")
                .code())
        .isEqualTo(200);
    assertThat(http.post("/v1/token/refresh", generator, "{\"refresh_token\":\"AAAA\"}").status())
        .isEqualTo("invalid_token");
    Response batch =
        http.post(
            "/v1/identity/map",
            mapper,
            "{\"email\":[\"one@example.com\",\"two@example.com\",\"not an email\"]}");
    assertThat(batch.successBody().path("mapped")).hasSize(2);
    assertThat(http.get("/v1/identity/map?email=opted.out%40example.com", mapper).status())
        .isEqualTo("optout");
    try (IdentityAdminClient admin = new IdentityAdminClient(server.grpcPort(), adminKey);
        IdentityAdminClient stranger = new IdentityAdminClient(server.grpcPort(), "not a key")) {
      admin.listClients();
      StatusRuntimeException refused =
          catchThrowableOfType(StatusRuntimeException.class, stranger::listClients);
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    }

    Scrape after = scrape();
    Map<String, Integer> expected =
        Map.ofEntries(
            Map.entry("veil_token_generations_total{outcome=\"generated\"}", 1),
            Map.entry("veil_token_generations_total{outcome=\"optout\"}", 1),
            Map.entry("veil_token_generations_total{outcome=\"invalid_identifier\"}", 1),
            Map.entry("veil_token_refreshes_total{outcome=\"refreshed\"}", 1),
            Map.entry("veil_token_refreshes_total{outcome=\"invalid\"}", 1),
            Map.entry("veil_token_refreshes_total{outcome=\"optout\"}", 0),
            Map.entry("veil_token_refreshes_total{outcome=\"expired\"}", 0),
            Map.entry("veil_identity_map_identifiers_total{outcome=\"mapped\"}", 2),
            Map.entry("veil_identity_map_identifiers_total{outcome=\"invalid_identifier\"}", 1),
            Map.entry("veil_identity_map_identifiers_total{outcome=\"optout\"}", 1),
            Map.entry("veil_optouts_recorded_total", 1),
            Map.entry("veil_optout_identities", 1),
            Map.entry(
                "veil_admin_grpc_calls_total{method=\"" + LIST_CLIENTS + "\",code=\"OK\"}", 1),
            Map.entry(
                "veil_admin_grpc_calls_total{method=\""
                    + LIST_CLIENTS
                    + "\",code=\"UNAUTHENTICATED\"}",
                1));
    expected.forEach(
        (series, delta) ->
            assertThat(after.value(series) - before.valueOrZero(series))
                .as(series)
                .isEqualTo(delta.doubleValue()));
    assertThat(after.type("veil_token_generations_total")).isEqualTo("counter");
    assertThat(after.type("veil_admin_grpc_calls_total")).isEqualTo("counter");
    assertThat(after.type("veil_optouts_recorded_total")).isEqualTo("counter");
    assertThat(after.series()).noneMatch(s -> s.contains("example.com") || s.contains("metrics "));
  }

  @Test
  void jvmProcessAndBuildFamilies_havePlausibleValues() throws IOException {
    Scrape s = scrape();
    double now = Instant.now().toEpochMilli() / 1000.0;

    assertThat(s.value("process_open_fds")).isPositive();
    assertThat(s.value("process_max_fds")).isGreaterThanOrEqualTo(s.value("process_open_fds"));
    assertThat(s.value("process_cpu_seconds_total")).isPositive();
    assertThat(s.value("process_start_time_seconds")).isBetween(now - 86_400, now);
    assertThat(s.value("process_uptime_seconds")).isPositive();
    assertThat(s.value("process_resident_memory_bytes")).isGreaterThan(1 << 20);
    assertThat(s.value("process_virtual_memory_bytes"))
        .isGreaterThan(s.value("process_resident_memory_bytes"));
    assertThat(s.value("jvm_memory_used_bytes{area=\"heap\"}")).isPositive();
    assertThat(s.value("jvm_memory_used_bytes{area=\"nonheap\"}")).isPositive();
    assertThat(s.value("jvm_memory_committed_bytes{area=\"heap\"}"))
        .isGreaterThanOrEqualTo(s.value("jvm_memory_used_bytes{area=\"heap\"}"));
    assertThat(s.value("jvm_memory_max_bytes{area=\"heap\"}"))
        .isGreaterThanOrEqualTo(s.value("jvm_memory_committed_bytes{area=\"heap\"}"));
    assertThat(s.series())
        .anySatisfy(
            series -> assertThat(series).startsWith("jvm_gc_collection_seconds_count{gc=\""));
    assertThat(s.type("jvm_gc_collection_seconds")).isEqualTo("summary");
    assertThat(s.value("jvm_threads_current")).isPositive();
    assertThat(s.value("jvm_threads_peak")).isGreaterThanOrEqualTo(s.value("jvm_threads_current"));
    assertThat(s.value("jvm_threads_daemon")).isLessThanOrEqualTo(s.value("jvm_threads_current"));
    assertThat(s.value("jvm_threads_state{state=\"RUNNABLE\"}")).isPositive();
    assertThat(s.value("jvm_classes_currently_loaded")).isPositive();
    assertThat(
            s.value(
                "veil_build_info{version=\""
                    + projectVersion()
                    + "\",java_version=\""
                    + System.getProperty("java.version")
                    + "\",profile=\"veil\"}"))
        .isEqualTo(1);
    assertThat(s.value("veil_sync_age_seconds")).isGreaterThanOrEqualTo(0);
  }

  @Test
  void scrape_runsOffTheEventLoop() {
    try (TestNode node = TestNode.start()) {
      AtomicReference<String> scrapedOn = new AtomicReference<>();
      node.metrics()
          .gauge(
              "veil_test_thread",
              "Where the scrape ran.",
              () -> {
                scrapedOn.set(Thread.currentThread().getName());
                return 1;
              });

      assertThat(node.get("/metrics", null).body()).contains("veil_test_thread 1\n");
      assertThat(scrapedOn.get()).isNotNull().doesNotContain("eventloop");
    }
  }

  @Test
  void grafanaDashboard_isImportable_andEveryMetricItQueriesIsInAScrape()
      throws IOException, InterruptedException {
    exerciseEveryFamily();
    Scrape s = scrape();
    JsonNode dashboard =
        new ObjectMapper().readTree(DEPLOY.resolve("grafana/veil-dashboard.json").toFile());

    assertThat(dashboard.path("__inputs"))
        .anySatisfy(
            input -> {
              assertThat(input.path("name").asText()).isEqualTo("DS_PROMETHEUS");
              assertThat(input.path("pluginId").asText()).isEqualTo("prometheus");
            });
    assertThat(dashboard.path("id").isNull()).as("an importable dashboard has id null").isTrue();
    List<JsonNode> panels = new ArrayList<>();
    dashboard.path("panels").forEach(panels::add);
    assertThat(panels).extracting(p -> p.path("id").asInt()).doesNotHaveDuplicates();
    List<String> queries = new ArrayList<>();
    for (JsonNode panel : panels) {
      if (!panel.path("type").asText().equals("row")) {
        assertThat(panel.path("datasource").path("uid").asText())
            .as(panel.path("title").asText())
            .isEqualTo("${DS_PROMETHEUS}");
        assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
      }
      panel.path("targets").forEach(t -> queries.add(t.path("expr").asText()));
    }
    dashboard
        .path("templating")
        .path("list")
        .forEach(v -> queries.add(v.path("definition").asText()));

    Set<String> used = new TreeSet<>();
    for (String query : queries) {
      Matcher m = METRIC.matcher(query);
      assertThat(m.find()).as("a query that names no Veil metric: " + query).isTrue();
      do {
        used.add(m.group());
      } while (m.find());
    }
    assertThat(s.sampleNames()).containsAll(used);
    assertThat(used)
        .contains(
            "veil_http_requests_total",
            "veil_token_generations_total",
            "veil_token_refreshes_total",
            "veil_identity_map_identifiers_total",
            "veil_optouts_recorded_total",
            "veil_admin_grpc_calls_total",
            "jvm_memory_used_bytes",
            "jvm_gc_collection_seconds_sum",
            "process_open_fds",
            "process_cpu_seconds_total",
            "veil_sync_age_seconds");
  }

  @Test
  void prometheusConfig_scrapesMetricsOfEachNode() throws IOException {
    JsonNode config =
        new ObjectMapper(new YAMLFactory())
            .readTree(DEPLOY.resolve("prometheus/prometheus.yml").toFile());

    assertThat(config.path("scrape_configs"))
        .isNotEmpty()
        .allSatisfy(
            job -> {
              assertThat(job.path("metrics_path").asText()).isEqualTo("/metrics");
              assertThat(job.path("job_name").asText()).startsWith("veil");
            });
    assertThat(config.path("scrape_configs").get(0).path("static_configs").get(0).path("targets"))
        .allSatisfy(target -> assertThat(target.asText()).endsWith(":8080"));
  }

  /** One request of each kind, so every family with lazily created series has one. */
  private static void exerciseEveryFamily() throws InterruptedException {
    http.get("/v1/token/generate?email=dashboard%40example.com", generator);
    try (IdentityAdminClient admin = new IdentityAdminClient(server.grpcPort(), adminKey)) {
      admin.listClients();
    }
  }

  /** The Maven project version, from the parent section of this module's pom. */
  private static String projectVersion() throws IOException {
    String pom = Files.readString(Path.of(System.getProperty("user.dir"), "pom.xml"));
    Matcher m =
        Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL).matcher(pom);
    assertThat(m.find()).as("the parent version in pom.xml").isTrue();
    return m.group(1);
  }
}
