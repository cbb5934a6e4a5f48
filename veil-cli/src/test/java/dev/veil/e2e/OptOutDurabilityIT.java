package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.AdminCli;
import dev.veil.testing.Http;
import dev.veil.testing.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/spec.md 8: nothing acknowledged is lost. Opt-outs are recorded by several concurrent
 * callers; the server is killed with SIGKILL while requests are in flight; after a restart every
 * acknowledged opt-out is in force.
 */
class OptOutDurabilityIT {
  @TempDir Path dataDir;

  @Test
  void acknowledgedOptOuts_surviveSigkill() throws Exception {
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    String key;
    try (ServerProcess server = ServerProcess.start(dataDir, "--set", "salt.buckets=1024")) {
      String adminKey = Files.readString(dataDir.resolve("admin.key")).strip();
      key = AdminCli.createClient(server.grpcPort(), adminKey, "optout-intake", "OPTOUT,MAPPER");
      Http http = new Http(server.baseUrl());
      ExecutorService pool = Executors.newFixedThreadPool(4);
      AtomicInteger next = new AtomicInteger();
      CountDownLatch enough = new CountDownLatch(200);
      for (int t = 0; t < 4; t++) {
        pool.execute(
            () -> {
              while (true) {
                String email = "user" + next.getAndIncrement() + "@example.com";
                try {
                  Http.Response r = http.post("/v1/optout", key, "{\"email\":\"" + email + "\"}");
                  if (r.code() == 200 && r.body().contains("\"success\"")) {
                    acknowledged.add(email);
                    enough.countDown();
                  }
                } catch (Exception e) {
                  return; // the server was killed: requests in flight fail, and were not
                  // acknowledged
                }
              }
            });
      }
      assertThat(enough.await(120, TimeUnit.SECONDS)).isTrue();
      server.kill();
      pool.shutdown();
      assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(200);

    try (ServerProcess server = ServerProcess.start(dataDir, "--set", "salt.buckets=1024")) {
      Http http = new Http(server.baseUrl());
      List<String> emails = List.copyOf(acknowledged);
      String body =
          "{\"email\":["
              + String.join(",", emails.stream().map(e -> "\"" + e + "\"").toList())
              + "]}";
      Http.Response r = http.post("/v1/identity/map", key, body);
      assertThat(r.code()).isEqualTo(200);
      assertThat(r.body()).doesNotContain("\"advertising_id\"");
      for (String email : emails) {
        assertThat(r.body()).contains("{\"identifier\":\"" + email + "\",\"reason\":\"optout\"}");
      }
    }
  }
}
