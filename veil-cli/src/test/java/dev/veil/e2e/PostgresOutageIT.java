package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.config.VeilConfig;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.server.VeilServer;
import dev.veil.testing.Await;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.Http;
import dev.veil.testing.Http.Response;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.PrivatePostgres;
import dev.veil.testing.TestConfigs;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/spec.md 8 with PostgreSQL down: a node keeps answering every read from memory, refuses
 * writes at once (HTTP 503, gRPC UNAVAILABLE, deduction code 1) with a clear message, stays ready
 * while its data is younger than {@code sync.max-staleness} and says why it is not ready after, and
 * catches up when the database returns. The database is a private server, so stopping it disturbs
 * no other test.
 */
class PostgresOutageIT {
  private static final Pattern SYNC_AGE = Pattern.compile("(?m)^veil_sync_age_seconds (\\S+)$");
  private static final String EMAIL = "outage@example.com";

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void databaseDown_readsServeFromMemory_writesFailFast_readinessFollowsStaleness()
      throws Exception {
    try (PrivatePostgres pg = PrivatePostgres.start()) {
      VeilConfig config =
          TestConfigs.config(
              "db",
              pg.url(),
              "sync.interval",
              "200ms",
              "sync.max-staleness",
              "6s",
              "keys.activation-delay",
              "7s",
              "db.timeout",
              "2s");
      try (VeilServer node = VeilServer.start(config, Clock.systemUTC());
          IdentityAdminClient admin =
              new IdentityAdminClient(node.grpcPort(), node.bootstrapAdminKey().orElseThrow());
          DeductionClient deductions =
              new DeductionClient(node.grpcPort(), node.bootstrapAdminKey().orElseThrow())) {
        Http http = new Http("http://127.0.0.1:" + node.httpPort());
        ClientService.CreatedClient client =
            node.services()
                .clients()
                .create("pub", 0, Set.of(Role.GENERATOR, Role.MAPPER, Role.OPTOUT, Role.ID_READER));
        String key = client.key().reveal();
        JsonNode tokens =
            http.get("/v1/token/generate?email=" + Http.encode(EMAIL), key).successBody();
        assertThat(http.post("/v1/optout", key, "{\"email\":\"gone@example.com\"}").code())
            .isEqualTo(200);

        pg.stopServer("immediate");

        // Reads: every one from memory.
        assertThat(http.get("/v1/token/generate?email=" + Http.encode(EMAIL), key).code())
            .isEqualTo(200);
        assertThat(
                http.get(
                        "/v1/token/refresh?refresh_token="
                            + Http.encode(tokens.get("refresh_token").asText()),
                        null)
                    .code())
            .isEqualTo(200);
        assertThat(
                http.get(
                        "/v1/token/validate?email="
                            + Http.encode(EMAIL)
                            + "&token="
                            + Http.encode(tokens.get("advertising_token").asText()),
                        key)
                    .code())
            .isEqualTo(200);
        assertThat(http.get("/v1/identity/map?email=" + Http.encode(EMAIL), key).code())
            .isEqualTo(200);
        assertThat(http.get("/v1/identity/map?email=gone%40example.com", key).status())
            .isEqualTo("optout");
        assertThat(http.post("/v1/identity/map", key, "{\"email\":[\"" + EMAIL + "\"]}").code())
            .isEqualTo(200);
        assertThat(http.get("/v1/identity/buckets?since_timestamp=0", key).code()).isEqualTo(200);
        assertThat(http.get("/v1/key/latest", key).code()).isEqualTo(200);
        assertThat(http.get("/ops/readyz", null).code()).isEqualTo(200);

        // Writes: refused at once, with a message that says what happened.
        long start = System.nanoTime();
        Response optOut = http.post("/v1/optout", key, "{\"email\":\"new@example.com\"}");
        long firstMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(optOut.code()).isEqualTo(503);
        assertThat(optOut.status()).isEqualTo("unknown");
        assertThat(optOut.message()).isEqualTo("Store unavailable, try again later");
        start = System.nanoTime();
        Response again = http.post("/v1/optout", key, "{\"email\":\"new@example.com\"}");
        long secondMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(again.code()).isEqualTo(503);
        System.out.println(
            "PostgresOutageIT: opt-out with the database down answered 503 in "
                + firstMs
                + " ms, then in "
                + secondMs
                + " ms");

        assertThatThrownBy(() -> admin.createClient("during-outage", "MAPPER"))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                  assertThat(e.getStatus().getDescription()).contains("storage unavailable");
                });
        DeductionResp deduction = deductions.create("during outage", "", 1, "outage-1");
        assertThat(deduction.getCode()).isEqualTo(1);
        assertThat(deduction.getMessage()).isEqualTo("storage unavailable");
        assertThat(deduction.getSuccess()).isFalse();

        // Readiness goes down once the data is older than sync.max-staleness, and says why.
        Await.until(
            Duration.ofSeconds(30),
            "readyz to report stale data",
            () -> {
              Response r = http.get("/ops/readyz", null);
              return r.code() == 503 && r.message().contains("data not synced with the store");
            });
        assertThat(syncAge(http)).isGreaterThan(6.0);
        assertThat(http.get("/v1/identity/map?email=" + Http.encode(EMAIL), key).code())
            .as("still answering from memory")
            .isEqualTo(200);

        pg.startServer();

        Await.until(
            Duration.ofSeconds(30),
            "readyz to come back",
            () -> http.get("/ops/readyz", null).code() == 200);
        Await.until(
            Duration.ofSeconds(30),
            "opt-out writes to work again",
            () -> http.post("/v1/optout", key, "{\"email\":\"new@example.com\"}").code() == 200);
        assertThat(syncAge(http)).isLessThan(6.0);
        assertThat(admin.createClient("after-outage", "MAPPER").getApiKey()).isNotBlank();
        assertThat(deductions.create("after outage", "", 1, "outage-2").getCode()).isZero();
        assertThat(http.get("/v1/identity/map?email=new%40example.com", key).status())
            .isEqualTo("optout");
      }
    }
  }

  private static double syncAge(Http http) {
    Matcher m = SYNC_AGE.matcher(http.get("/metrics", null).body());
    assertThat(m.find()).as("veil_sync_age_seconds in /metrics").isTrue();
    return Double.parseDouble(m.group(1));
  }
}
