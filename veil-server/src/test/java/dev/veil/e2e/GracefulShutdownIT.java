package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.Await;
import dev.veil.testing.Http;
import dev.veil.testing.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM with {@code http.drain-delay}: the node reports not ready at once but keeps answering
 * during the delay (so a load balancer polling readiness takes it out before it stops accepting),
 * then exits cleanly.
 */
class GracefulShutdownIT {
  @TempDir Path dataDir;

  @Test
  void sigterm_withDrainDelay_failsReadinessButKeepsServing_thenExits() throws Exception {
    try (ServerProcess server = ServerProcess.start(dataDir, "--set", "salt.buckets=1024",
        "--set", "http.drain-delay=4s")) {
      Http http = new Http(server.baseUrl());
      assertThat(http.get("/ops/readyz", null).code()).isEqualTo(200);

      CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> {
        try {
          return server.terminate(Duration.ofSeconds(60));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return -2;
        }
      });
      Await.until(Duration.ofSeconds(10), "readiness to fail", () -> http.get("/ops/readyz", null).code() == 503);

      assertThat(http.get("/ops/readyz", null).body()).contains("shutting down");
      assertThat(http.get("/ops/healthz", null).code()).isEqualTo(200);
      assertThat(exit).isNotDone();
      assertThat(exit.get()).as("exit status after SIGTERM").isIn(0, 143);
      assertThat(server.output()).anyMatch(line -> line.contains("event=draining"));
    }
  }
}
