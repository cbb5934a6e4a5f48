package dev.veil.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.testing.AdminCli;
import dev.veil.testing.Browser;
import dev.veil.testing.Http;
import dev.veil.testing.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One real {@code veil serve --demo} child process shared by every browser test of a run, with
 * token lifetimes short enough to watch refreshes happen ({@link #REFRESH_FROM} after issue), and
 * API keys for what the tests do beside the browser (generate, opt-out, validate).
 */
final class DemoServer implements AutoCloseable {
  static final Duration REFRESH_FROM = Duration.ofSeconds(2);

  /**
   * Host names the tests use for the demo site besides 127.0.0.1 (see {@link Browser#TEST_DOMAIN}).
   */
  static final String SITE_A = "a." + Browser.TEST_DOMAIN;

  static final String SITE_B = "b." + Browser.TEST_DOMAIN;

  private final Path dataDir;
  private final ServerProcess process;
  private final Http api;
  private final String generatorKey;
  private final String optOutKey;
  private final String mapperKey;

  private DemoServer(Path dataDir, ServerProcess process) {
    this.dataDir = dataDir;
    this.process = process;
    this.api = new Http(process.baseUrl());
    String adminKey = read(dataDir.resolve("admin.key")).strip();
    this.generatorKey =
        AdminCli.createClient(process.grpcPort(), adminKey, "sdk-tests", "GENERATOR");
    this.optOutKey =
        AdminCli.createClient(process.grpcPort(), adminKey, "sdk-tests-optout", "OPTOUT");
    this.mapperKey =
        AdminCli.createClient(process.grpcPort(), adminKey, "sdk-tests-mapper", "MAPPER");
  }

  static DemoServer start() {
    try {
      Path dataDir = Files.createTempDirectory("veil-sdk-it-");
      ServerProcess process =
          ServerProcess.start(
              dataDir,
              "--demo",
              "--set",
              "demo.port=0",
              "--set",
              "salt.buckets=64",
              "--set",
              "token.refresh-from=" + REFRESH_FROM.toSeconds() + "s",
              "--set",
              "token.advertising-lifetime=60s",
              "--set",
              "token.refresh-lifetime=120s");
      if (process.demoPort() == 0) {
        process.close();
        throw new IllegalStateException("the demo site did not start: " + process.output());
      }
      return new DemoServer(dataDir, process);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The Veil API, e.g. {@code http://127.0.0.1:41234}. */
  String apiBase() {
    return process.baseUrl();
  }

  /**
   * The demo site on {@code host} (127.0.0.1 or a name under the test domain), with {@code query}.
   */
  String demoUrl(String host, String query) {
    return demoOrigin(host) + "/" + (query.isEmpty() ? "" : "?" + query);
  }

  /** The demo site's origin on {@code host}, e.g. {@code http://a.pub.test:41235}. */
  String demoOrigin(String host) {
    return "http://" + host + ":" + process.demoPort();
  }

  /** Every origin a test may leave storage behind in. */
  List<String> origins() {
    int demo = process.demoPort();
    return List.of(
        apiBase(),
        "http://127.0.0.1:" + demo,
        "http://" + SITE_A + ":" + demo,
        "http://" + SITE_B + ":" + demo);
  }

  Http api() {
    return api;
  }

  /** The body of a generate answer for {@code email}, as a publisher's server gets it. */
  JsonNode generate(String email) {
    return api.post("/v1/token/generate", generatorKey, "{\"email\":\"" + email + "\"}")
        .successBody();
  }

  /** The same, as a map that Selenium hands to a page script as a plain object. */
  Map<String, Object> identityFor(String email) {
    Map<String, Object> identity = new LinkedHashMap<>();
    generate(email)
        .fields()
        .forEachRemaining(
            f ->
                identity.put(
                    f.getKey(),
                    f.getValue().isNumber()
                        ? (Object) f.getValue().asLong()
                        : f.getValue().asText()));
    return identity;
  }

  /** Records an opt-out through the API, as an opt-out operator would. */
  void optOut(String email) {
    api.post("/v1/optout", optOutKey, "{\"email\":\"" + email + "\"}").successBody();
  }

  /** The advertising id the API maps {@code email} to now, as a data collector would get it. */
  String advertisingIdOf(String email) {
    return api.get("/v1/identity/map?email=" + Http.encode(email), mapperKey)
        .successBody()
        .get("advertising_id")
        .asText();
  }

  /** Validate with a key: true only for the test identity's tokens. */
  boolean validates(String advertisingToken, String email) {
    return api.get(
            "/v1/token/validate?token="
                + Http.encode(advertisingToken)
                + "&email="
                + Http.encode(email),
            generatorKey)
        .successBody()
        .asBoolean();
  }

  /**
   * How many requests to {@code route} with {@code method} the server has answered so far (any
   * status).
   */
  long requests(String route, String method) {
    String metrics = api.get("/metrics", null).body();
    Pattern line =
        Pattern.compile("^veil_http_requests_total\\{([^}]*)\\} (\\d+)$", Pattern.MULTILINE);
    long total = 0;
    Matcher m = line.matcher(metrics);
    while (m.find()) {
      if (m.group(1).contains("route=\"" + route + "\"")
          && m.group(1).contains("method=\"" + method + "\"")) {
        total += Long.parseLong(m.group(2));
      }
    }
    return total;
  }

  /** Kills the server and deletes its data directory. */
  @Override
  public void close() throws InterruptedException, IOException {
    process.close();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
