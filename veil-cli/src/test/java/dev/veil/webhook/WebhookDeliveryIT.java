package dev.veil.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
import dev.veil.config.VeilConfig;
import dev.veil.grpc.identity.admin.v1.Identity;
import dev.veil.grpc.identity.admin.v1.RecordOptOutRequest;
import dev.veil.server.VeilServer;
import dev.veil.testing.AdminCli;
import dev.veil.testing.Await;
import dev.veil.testing.Http;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.ServerProcess;
import dev.veil.testing.TestConfigs;
import dev.veil.testing.WebhookReceiver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/spec.md 4.1 on one node with the embedded store: every opt-out, through the public API and
 * the admin API, reaches a registered webhook, signed; a receiver that fails is retried until it
 * answers; a node restarted after a stop, or after SIGKILL, delivers what it had not delivered; the
 * metrics count it.
 */
class WebhookDeliveryIT {
  private static final Duration WHEN_UP = Duration.ofSeconds(5);
  private static final Duration EVENTUALLY = Duration.ofSeconds(60);

  @TempDir Path dataDir;

  private VeilConfig config() {
    return TestConfigs.config(
        "db",
        dataDir.resolve("veil.db").toString(),
        "data.dir",
        dataDir.toString(),
        "webhook.poll-interval",
        "100ms",
        "webhook.max-backoff",
        "2s",
        "webhook.timeout",
        "3s");
  }

  private static List<String> emails(String prefix, int count) {
    return IntStream.range(0, count).mapToObj(i -> prefix + i + "@example.com").toList();
  }

  @Test
  void everyOptOut_arrivesSigned_despiteFailures_andAcrossARestart() throws Exception {
    List<String> expected = new ArrayList<>();
    String key;
    String adminKey;
    try (WebhookReceiver receiver = WebhookReceiver.start(Duration.ofSeconds(4))) {
      try (VeilServer node = VeilServer.start(config(), Clock.systemUTC())) {
        adminKey = node.bootstrapAdminKey().orElseThrow();
        key =
            node.services()
                .clients()
                .create("intake", 0, java.util.Set.of(Role.OPTOUT, Role.MAPPER))
                .key()
                .reveal();
        long bidder =
            node.services()
                .clients()
                .create("bidder", 0, java.util.Set.of(Role.ID_READER))
                .client()
                .id();
        WebhookService.Created hook = node.services().webhooks().register(bidder, receiver.url());
        receiver.verifyWith(hook.secret().reveal());
        receiver.failNext(6);
        Http http = new Http("http://127.0.0.1:" + node.httpPort());

        List<String> viaHttp = emails("public", 20);
        List<String> viaAdmin = emails("admin", 5);
        Map<String, String[]> ids = http.identityMap(key, "email", concat(viaHttp, viaAdmin));
        for (String email : viaHttp) {
          assertThat(http.post("/v1/optout", key, "{\"email\":\"" + email + "\"}").code())
              .isEqualTo(200);
          expected.add(ids.get(email)[0]);
        }
        try (IdentityAdminClient admin = new IdentityAdminClient(node.grpcPort(), adminKey)) {
          for (String email : viaAdmin) {
            admin
                .api()
                .recordOptOut(
                    RecordOptOutRequest.newBuilder()
                        .setIdentity(Identity.newBuilder().setEmail(email))
                        .build());
            expected.add(ids.get(email)[0]);
          }
        }
        Await.until(
            EVENTUALLY,
            "all 25 opt-outs accepted by a receiver that failed its first answers",
            () -> receiver.countsById().keySet().containsAll(expected));
        assertThat(receiver.failed()).isEqualTo(6);
        assertThat(receiver.countsById()).hasSize(25).allSatisfy((id, n) -> assertThat(n).isOne());

        String late = "late@example.com";
        String lateId = http.identityMap(key, "email", List.of(late)).get(late)[0];
        http.post("/v1/optout", key, "{\"email\":\"" + late + "\"}");
        expected.add(lateId);
        Await.until(
            WHEN_UP,
            "an opt-out reaches a receiver that is up",
            () -> receiver.countsById().containsKey(lateId));

        String metrics = http.get("/metrics", null).body();
        assertThat(metrics)
            .contains("veil_webhook_requests_total{outcome=\"delivered\"} 26")
            .contains("veil_webhook_requests_total{outcome=\"refused\"} 3")
            .contains("veil_webhook_requests_total{outcome=\"unreachable\"} 3")
            .contains("veil_webhook_delivery_lag_seconds_count 26")
            .contains("veil_webhook_oldest_undelivered_seconds");

        receiver.down(true);
        List<String> whileDown = emails("down", 10);
        Map<String, String[]> downIds = http.identityMap(key, "email", whileDown);
        for (String email : whileDown) {
          http.post("/v1/optout", key, "{\"email\":\"" + email + "\"}");
          expected.add(downIds.get(email)[0]);
        }
        Await.until(EVENTUALLY, "the receiver refused some requests", () -> receiver.failed() > 7);
      }
      receiver.down(false);
      try (VeilServer again = VeilServer.start(config(), Clock.systemUTC())) {
        Await.until(
            EVENTUALLY,
            "the restarted node delivers what the stopped one had not",
            () -> receiver.countsById().keySet().containsAll(expected));
      }
      assertThat(receiver.countsById().keySet()).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(receiver.badSignatures()).isZero();
    }
  }

  @Test
  void aSigkilledNode_deliversEverythingAfterItsRestart() throws Exception {
    Path dir = dataDir.resolve("killed");
    String[] settings = {
      "--set",
      "salt.buckets=64",
      "--set",
      "webhook.poll-interval=100ms",
      "--set",
      "webhook.timeout=3s"
    };
    try (WebhookReceiver receiver = WebhookReceiver.start(Duration.ofSeconds(4))) {
      List<String> expected;
      try (ServerProcess node = ServerProcess.start(dir, settings)) {
        String adminKey = java.nio.file.Files.readString(dir.resolve("admin.key")).strip();
        String key = AdminCli.createClient(node.grpcPort(), adminKey, "intake", "OPTOUT,MAPPER");
        AdminCli.createClient(node.grpcPort(), adminKey, "bidder", "ID_READER");
        AdminCli.Result hook =
            AdminCli.run(
                node.grpcPort(),
                adminKey,
                "webhooks",
                "register",
                "--client-id",
                "3",
                "--url",
                receiver.url(),
                "--secret-only");
        assertThat(hook.exitCode()).as(hook.out()).isZero();
        receiver.verifyWith(hook.out().lines().findFirst().orElseThrow().strip());
        Http http = new Http(node.baseUrl());
        List<String> emails = emails("killed", 300);
        Map<String, String[]> ids = http.identityMap(key, "email", emails);
        expected = emails.stream().map(e -> ids.get(e)[0]).toList();
        for (int i = 0; i < emails.size(); i++) {
          if (i == emails.size() / 2) {
            receiver.down(true); // the second half waits for the restart
          }
          String email = emails.get(i);
          assertThat(http.post("/v1/optout", key, "{\"email\":\"" + email + "\"}").code())
              .isEqualTo(200);
        }
        assertThat(receiver.countsById()).doesNotContainKey(expected.get(emails.size() - 1));
        node.kill();
      }
      receiver.down(false);
      try (ServerProcess again = ServerProcess.start(dir, settings)) {
        Await.until(
            EVENTUALLY,
            "the restarted node delivers every opt-out the killed one had acknowledged",
            () -> receiver.countsById().keySet().containsAll(expected));
      }
      assertThat(receiver.countsById().keySet()).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(receiver.badSignatures()).isZero();
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
