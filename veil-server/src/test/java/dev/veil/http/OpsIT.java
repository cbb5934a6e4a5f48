package dev.veil.http;

import static dev.veil.testing.InMemoryStores.Call.writesTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.Await;
import dev.veil.testing.CapturedLogs;
import dev.veil.testing.Http;
import dev.veil.testing.Http.Response;
import dev.veil.testing.InMemoryStores.Part;
import io.vertx.core.Future;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OpsIT {
  @Test
  void healthzAndReadyz_answerSuccessWithoutAKey() {
    try (TestNode node = TestNode.start()) {
      assertThat(node.get("/ops/healthz", null).body())
          .isEqualTo("{\"status\":\"success\",\"body\":\"alive\"}");
      assertThat(node.get("/ops/readyz", null).body())
          .isEqualTo("{\"status\":\"success\",\"body\":\"ready\"}");
    }
  }

  @Test
  void readyz_whenDraining_returns503WithTheReason() {
    try (TestNode node = TestNode.start()) {
      node.services().readiness().markDraining();

      Response r = node.get("/ops/readyz", null);

      assertThat(r.code()).isEqualTo(503);
      assertThat(r.status()).isEqualTo("unknown");
      assertThat(r.message()).isEqualTo("Not ready: shutting down");
      assertThat(node.get("/ops/healthz", null).code()).isEqualTo(200);
    }
  }

  @Test
  void metrics_countRequestsPerRouteMethodAndStatus() {
    try (TestNode node = TestNode.start()) {
      String mapper = node.newApiKey(Role.MAPPER);
      node.get("/v1/identity/map?email=a%40example.com", mapper);
      node.get("/v1/identity/map?email=a%40example.com", mapper);
      node.get("/v1/identity/map?email=bad", mapper);
      node.get("/nowhere", null);

      Response r = node.get("/metrics", null);

      assertThat(r.code()).isEqualTo(200);
      assertThat(r.header("Content-Type")).startsWith("text/plain; version=0.0.4");
      assertThat(r.body())
          .contains(
              "veil_http_requests_total{route=\"/v1/identity/map\",method=\"GET\",status=\"200\"}"
                  + " 2\n")
          .contains(
              "veil_http_requests_total{route=\"/v1/identity/map\",method=\"GET\",status=\"400\"}"
                  + " 1\n")
          .contains(
              "veil_http_requests_total{route=\"unmatched\",method=\"other\",status=\"404\"} 1\n")
          .contains(
              "veil_http_request_duration_seconds_count{route=\"/v1/identity/map\","
                  + "method=\"GET\",status=\"200\"}"
                  + " 2\n")
          .contains(
              "veil_http_request_duration_seconds_bucket{route=\"/v1/identity/map\","
                  + "method=\"GET\",status=\"200\",le=\"+Inf\"}"
                  + " 2\n")
          .doesNotContain("a@example.com");
    }
  }

  @Test
  void accessLog_whenEnabled_logsRouteStatusAndClientButNeverTheQuery() {
    try (CapturedLogs logs = CapturedLogs.of("dev.veil.http.access");
        TestNode node = TestNode.start(java.util.Map.of("log.access", "true"))) {
      String mapper = node.newApiKey(Role.MAPPER);
      node.get("/v1/identity/map?email=private.person%40example.com", mapper);
      node.get("/v1/private.person@example.com", null);

      assertThat(logs.messages()).hasSize(2);
      assertThat(logs.messages().get(0))
          .contains("method=GET path=/v1/identity/map status=200", "client=");
      assertThat(logs.messages().get(1)).contains("path=unmatched status=404");
      assertThat(logs.messages())
          .allSatisfy(message -> assertThat(message).doesNotContain("private"));
    }
  }

  @Test
  void openApi_isServedAsYamlAndDescribesEveryRoute() throws Exception {
    try (TestNode node = TestNode.start()) {
      Response r = node.get("/openapi.yaml", null);

      assertThat(r.code()).isEqualTo(200);
      assertThat(r.header("Content-Type")).startsWith("application/yaml");
      JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(r.body());
      assertThat(doc.path("openapi").asText()).startsWith("3.1");
      assertThat(doc.path("paths").fieldNames())
          .toIterable()
          .containsExactlyInAnyOrder(
              "/v1/token/generate",
              "/v1/token/refresh",
              "/v1/token/validate",
              "/v1/identity/map",
              "/v2/identity/map",
              "/v3/identity/map",
              "/v2/token/generate",
              "/v2/token/refresh",
              "/v2/token/validate",
              "/v2/token/logout",
              "/v1/identity/buckets",
              "/v2/identity/buckets",
              "/v1/optout",
              "/v2/optout/status",
              "/v1/key/latest",
              "/v2/key/bidstream",
              "/v2/key/sharing",
              "/ops/healthz",
              "/ops/readyz",
              "/metrics",
              "/openapi.yaml",
              "/static/veil-sdk.js",
              "/static/veil-sdk-{version}.js");
    }
  }

  @Test
  void unknownPath_returns404Json() {
    try (TestNode node = TestNode.start()) {
      Response r = node.get("/v1/token/generat?email=secret%40example.com", null);

      assertThat(r.code()).isEqualTo(404);
      assertThat(r.body()).isEqualTo("{\"status\":\"unknown_path\",\"message\":\"Unknown path\"}");
    }
  }

  @Test
  void head_onOpenRoutes_answersAsGetWithoutABody_andNotOnKeyedOnes() {
    try (TestNode node = TestNode.start()) {
      Response healthz =
          node.send(
              HttpRequest.newBuilder(node.uri("/ops/healthz"))
                  .method("HEAD", HttpRequest.BodyPublishers.noBody())
                  .build());
      Response metrics =
          node.send(
              HttpRequest.newBuilder(node.uri("/metrics"))
                  .method("HEAD", HttpRequest.BodyPublishers.noBody())
                  .build());
      Response generate =
          node.send(
              HttpRequest.newBuilder(node.uri("/v1/token/generate?email=a%40example.com"))
                  .method("HEAD", HttpRequest.BodyPublishers.noBody())
                  .build());
      Response healthzAfter = node.get("/ops/healthz", null); // the connection is still in step

      assertThat(healthz.code()).isEqualTo(200);
      assertThat(healthz.body()).isEmpty();
      assertThat(healthz.header("Content-Type")).startsWith("application/json");
      assertThat(metrics.code()).isEqualTo(200);
      assertThat(metrics.body()).isEmpty();
      assertThat(generate.code()).isEqualTo(405);
      assertThat(generate.header("Allow")).isEqualTo("GET, POST");
      assertThat(healthzAfter.body()).isEqualTo("{\"status\":\"success\",\"body\":\"alive\"}");
    }
  }

  @Test
  void head_answersCarryTheContentLengthOfTheAnswerWithABody() {
    try (TestNode node = TestNode.start()) {
      for (String path :
          new String[] {
            "/ops/healthz", "/ops/readyz", "/openapi.yaml", "/static/veil-sdk.js", "/nowhere"
          }) {
        Response get = node.send(HttpRequest.newBuilder(node.uri(path)).GET().build());
        Response head = head(node, path);

        assertThat(head.code()).as(path).isEqualTo(get.code());
        assertThat(head.body()).as(path).isEmpty();
        assertThat(head.header("Content-Length")).as(path).isEqualTo(byteLength(get.body()));
      }
      Response put =
          node.send(
              HttpRequest.newBuilder(node.uri("/v1/token/generate"))
                  .PUT(HttpRequest.BodyPublishers.noBody())
                  .build());
      Response head = head(node, "/v1/token/generate");
      assertThat(head.code()).isEqualTo(405);
      assertThat(head.header("Content-Length")).isEqualTo(byteLength(put.body()));
    }
  }

  private static Response head(TestNode node, String path) {
    return node.send(
        HttpRequest.newBuilder(node.uri(path))
            .method("HEAD", HttpRequest.BodyPublishers.noBody())
            .build());
  }

  private static String byteLength(String body) {
    return Integer.toString(body.getBytes(StandardCharsets.UTF_8).length);
  }

  @Test
  void wrongMethod_returns405JsonWithAllow() {
    try (TestNode node = TestNode.start()) {
      Response r =
          node.send(
              HttpRequest.newBuilder(node.uri("/v1/identity/map"))
                  .method("DELETE", HttpRequest.BodyPublishers.noBody())
                  .build());
      Response buckets = node.post("/v1/identity/buckets", null, "{}");

      assertThat(r.code()).isEqualTo(405);
      assertThat(r.status()).isEqualTo("method_not_allowed");
      assertThat(r.header("Allow")).isEqualTo("GET, POST");
      assertThat(buckets.code()).isEqualTo(405);
      assertThat(buckets.header("Allow")).isEqualTo("GET");
    }
  }

  @Test
  void stop_letsAnInFlightRequestFinish_andServesNoNewRequests() throws Exception {
    TestNode node = TestNode.start();
    try {
      String optOut = node.newApiKey(Role.OPTOUT);
      CountDownLatch gate = new CountDownLatch(1);
      CountDownLatch entered = new CountDownLatch(1);
      node.store().holdCalls(writesTo(Part.OPT_OUTS), gate, entered);
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      CompletableFuture<HttpResponse<String>> inFlight =
          client.sendAsync(
              HttpRequest.newBuilder(node.uri("/v1/optout"))
                  .header("Authorization", Http.bearer(optOut))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"email\":\"late@example.com\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

      Future<Void> stopped = node.server().stop();
      // Closing the listeners happens on the event loops, asynchronously: wait until a new request
      // is refused (or closed unanswered) while the in-flight one is still held.
      Await.until(
          Duration.ofSeconds(5),
          "the stopped server refuses new requests",
          () -> {
            try {
              HttpClient.newHttpClient()
                  .send(
                      HttpRequest.newBuilder(node.uri("/ops/healthz")).build(),
                      HttpResponse.BodyHandlers.ofString());
              return false;
            } catch (IOException e) {
              return true;
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return true;
            }
          });
      assertThat(inFlight).isNotDone();
      gate.countDown();

      HttpResponse<String> response = inFlight.get(10, TimeUnit.SECONDS);
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).contains("opted_out_at");
      TestNode.await(stopped);
    } finally {
      node.close();
    }
  }
}
