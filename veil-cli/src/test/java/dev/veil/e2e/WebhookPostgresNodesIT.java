package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.grpc.identity.admin.v1.RegisterWebhookRequest;
import dev.veil.grpc.identity.admin.v1.RegisterWebhookResponse;
import dev.veil.storage.PostgresTestDatabase;
import dev.veil.testing.Await;
import dev.veil.testing.Http;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.ServerProcess;
import dev.veil.testing.WebhookReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/spec.md 4.1 on three {@code veil serve} processes on one PostgreSQL: opt-outs recorded
 * through every node reach one webhook whose receiver fails its first answers; the node that
 * delivers is killed with SIGKILL while it delivers; another node takes over. Every acknowledged
 * opt-out arrives, every signature verifies, and an opt-out arrives twice only if it was recorded
 * before the kill (a duplicate only across the crash).
 */
class WebhookPostgresNodesIT {
  private static final Duration EVENTUALLY = Duration.ofSeconds(90);
  private static final int OPT_OUTS = 300;

  @TempDir Path temp;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void threeNodes_sigkillTheDeliveringNode_everyOptOutArrives() throws Exception {
    try (PostgresTestDatabase pg = PostgresTestDatabase.create();
        WebhookReceiver receiver = WebhookReceiver.start(Duration.ofSeconds(6))) {
      List<ServerProcess> nodes = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          nodes.add(
              ServerProcess.startOnPostgres(
                  temp.resolve("n" + i),
                  pg.url(),
                  "webhook.poll-interval=200ms",
                  "webhook.timeout=5s",
                  "webhook.max-backoff=2s"));
        }
        String adminKey = Files.readString(temp.resolve("n0").resolve("admin.key")).strip();
        String key;
        try (IdentityAdminClient admin =
            new IdentityAdminClient(nodes.get(1).grpcPort(), adminKey)) {
          key = admin.createClient("intake", "OPTOUT", "MAPPER").getApiKey();
          long bidder = admin.createClient("bidder", "ID_READER").getClient().getId();
          RegisterWebhookResponse hook =
              admin
                  .api()
                  .registerWebhook(
                      RegisterWebhookRequest.newBuilder()
                          .setClientId(bidder)
                          .setUrl(receiver.url())
                          .build());
          receiver.verifyWith(hook.getSecret());
        }
        receiver.failNext(4);

        List<String> emails =
            IntStream.range(0, OPT_OUTS).mapToObj(i -> "pg" + i + "@example.com").toList();
        Http first = new Http(nodes.get(2).baseUrl());
        Await.until(
            EVENTUALLY,
            "node 3 knows the new client",
            () -> first.get("/v1/identity/map?email=x%40example.com", key).code() == 200);
        Map<String, String[]> ids = first.identityMap(key, "email", emails);

        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Set<String> beforeKill = ConcurrentHashMap.newKeySet();
        int delivering = -1;
        for (int i = 0; i < emails.size(); i++) {
          if (i == OPT_OUTS / 3) {
            Await.until(
                EVENTUALLY,
                "the receiver accepts opt-outs",
                () -> receiver.accepted().size() >= 20);
            delivering = deliveringNode(nodes);
            beforeKill.addAll(acknowledged);
            nodes.get(delivering).kill();
          }
          List<Integer> live = live(nodes);
          ServerProcess node = nodes.get(live.get(i % live.size()));
          String email = emails.get(i);
          Http.Response r =
              new Http(node.baseUrl()).post("/v1/optout", key, "{\"email\":\"" + email + "\"}");
          if (r.code() == 200) {
            acknowledged.add(ids.get(email)[0]);
          }
        }
        assertThat(acknowledged).hasSize(OPT_OUTS);
        Await.until(
            EVENTUALLY,
            "every acknowledged opt-out reaches the receiver after the kill",
            () -> receiver.countsById().keySet().containsAll(acknowledged));

        int killed = delivering;
        assertThat(
                IntStream.range(0, nodes.size())
                    .filter(n -> n != killed)
                    .anyMatch(n -> startedDelivering(nodes.get(n))))
            .as("another node took over delivery")
            .isTrue();
        Set<String> duplicated =
            receiver.countsById().entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        assertThat(beforeKill).containsAll(duplicated);
        assertThat(receiver.countsById().keySet()).isEqualTo(acknowledged);
        assertThat(receiver.badSignatures()).isZero();
        assertThat(receiver.failed()).isGreaterThanOrEqualTo(4);
      } finally {
        for (ServerProcess node : nodes) {
          node.close();
        }
      }
    }
  }

  private static List<Integer> live(List<ServerProcess> nodes) {
    return IntStream.range(0, nodes.size()).filter(i -> nodes.get(i).alive()).boxed().toList();
  }

  /** The node whose log says it started delivering (and which still runs). */
  private static int deliveringNode(List<ServerProcess> nodes) {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).alive() && startedDelivering(nodes.get(i))) {
        return i;
      }
    }
    throw new AssertionError("no node delivers webhooks");
  }

  private static boolean startedDelivering(ServerProcess node) {
    return node.output().stream().anyMatch(l -> l.contains("event=webhook_delivery_started"));
  }
}
