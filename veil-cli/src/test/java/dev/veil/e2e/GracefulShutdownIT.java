package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.http.testing.RawHttp;
import dev.veil.testing.AdminCli;
import dev.veil.testing.Await;
import dev.veil.testing.Http;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.ServerProcess;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM (docs/spec.md 9): with {@code http.drain-delay}, the node reports not ready at once but
 * keeps answering during the delay (so a load balancer polling readiness takes it out before it
 * stops accepting), then exits cleanly; without one, it stops accepting HTTP connections and admin
 * calls at once and finishes what is in flight, up to {@code http.shutdown-timeout}.
 */
class GracefulShutdownIT {
  @TempDir Path dataDir;

  @Test
  void sigterm_withDrainDelay_failsReadinessButKeepsServing_thenExits() throws Exception {
    try (ServerProcess server =
        ServerProcess.start(
            dataDir, "--set", "salt.buckets=1024", "--set", "http.drain-delay=4s")) {
      Http http = new Http(server.baseUrl());
      assertThat(http.get("/ops/readyz", null).code()).isEqualTo(200);

      CompletableFuture<Integer> exit =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return server.terminate(Duration.ofSeconds(60));
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return -2;
                }
              });
      Await.until(
          Duration.ofSeconds(10),
          "readiness to fail",
          () -> http.get("/ops/readyz", null).code() == 503);

      assertThat(http.get("/ops/readyz", null).body()).contains("shutting down");
      assertThat(http.get("/ops/healthz", null).code()).isEqualTo(200);
      assertThat(exit).isNotDone();
      assertThat(exit.get()).as("exit status after SIGTERM").isIn(0, 143);
      assertThat(server.output()).anyMatch(line -> line.contains("event=draining"));
    }
  }

  @Test
  void sigterm_refusesNewAdminCallsAtOnce_whileAnHttpRequestInFlightFinishes() throws Exception {
    try (ServerProcess server = ServerProcess.start(dataDir, "--set", "salt.buckets=1024")) {
      String adminKey = Files.readString(dataDir.resolve("admin.key")).strip();
      String mapperKey = AdminCli.createClient(server.grpcPort(), adminKey, "mapper", "MAPPER");
      String body = "{\"email\":[\"a@example.com\"]}";
      try (RawHttp upload = RawHttp.connect(server.httpPort());
          IdentityAdminClient admin = new IdentityAdminClient(server.grpcPort(), adminKey)) {
        // The 100 Continue shows the request is in flight: its handler runs and waits for the body.
        assertThat(upload.write(uploadHead(mapperKey, body.length())).readResponse())
            .startsWith("HTTP/1.1 100");
        assertThat(admin.listClients().getClientsCount()).isEqualTo(2);

        CompletableFuture<Integer> exit = terminateAsync(server);
        Await.until(
            Duration.ofSeconds(10),
            "admin calls to be refused",
            () -> refused(server.grpcPort(), adminKey));

        assertThat(exit).as("the upload in flight holds the stop").isNotDone();
        String answer = upload.write(body).readResponse();
        assertThat(answer)
            .startsWith("HTTP/1.1 200")
            .contains("\"mapped\"")
            .as("the next request goes to a new connection, not to this closing one")
            .containsIgnoringCase("connection: close");
        assertThat(exit.get()).as("exit status after SIGTERM").isIn(0, 143);
      }
    }
  }

  @Test
  void sigterm_withAnUploadThatNeverEnds_closesItAfterTheShutdownTimeout_andStopsWithoutErrors()
      throws Exception {
    try (ServerProcess server =
        ServerProcess.start(
            dataDir, "--set", "salt.buckets=1024", "--set", "http.shutdown-timeout=2s")) {
      String adminKey = Files.readString(dataDir.resolve("admin.key")).strip();
      String mapperKey = AdminCli.createClient(server.grpcPort(), adminKey, "mapper", "MAPPER");
      try (RawHttp upload = RawHttp.connect(server.httpPort())) {
        assertThat(upload.write(uploadHead(mapperKey, 1000)).readResponse())
            .startsWith("HTTP/1.1 100");
        upload.write("{\"email\":[");

        long start = System.nanoTime();
        assertThat(server.terminate(Duration.ofSeconds(60)))
            .as("exit status after SIGTERM")
            .isIn(0, 143);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(upload.closedByServer()).isTrue();
        assertThat(took).isLessThan(Duration.ofSeconds(20));
        assertThat(server.output()).anyMatch(line -> line.contains("event=stopped"));
        assertThat(server.output())
            .noneMatch(line -> line.contains("level=ERROR") || line.contains("level=WARN"));
      }
    }
  }

  @Test
  void sigterm_whileTheNodeIsStillStarting_closesItOnceStarted_withoutAStackTrace()
      throws Exception {
    // A first start computes a million buckets' salts: the SIGTERM lands while it is under way.
    try (ServerProcess server = ServerProcess.launch(dataDir)) {
      Await.until(
          Duration.ofSeconds(60),
          "the start to be under way",
          () -> server.output().stream().anyMatch(line -> line.contains("event=config")));

      int exit = server.terminate(Duration.ofSeconds(60));

      List<String> output = server.output();
      assertThat(exit).as("exit status after SIGTERM").isIn(0, 143);
      assertThat(output)
          .as("the node was closed, not halted half-way")
          .anyMatch(line -> line.contains("event=stopped"));
      assertThat(output).noneMatch(line -> line.contains("Exception") || line.contains("\tat "));
    }
  }

  private static String uploadHead(String key, int length) {
    return "POST /v1/identity/map HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
        + key
        + "\r\nContent-Type: application/json\r\nContent-Length: "
        + length
        + "\r\nExpect: 100-continue\r\n\r\n";
  }

  private static CompletableFuture<Integer> terminateAsync(ServerProcess server) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return server.terminate(Duration.ofSeconds(60));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -2;
          }
        });
  }

  /** Whether a new admin call, on a new channel, is refused as the server stops. */
  private static boolean refused(int grpcPort, String adminKey) {
    try (IdentityAdminClient fresh = new IdentityAdminClient(grpcPort, adminKey)) {
      fresh.listClients();
      return false;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode() == Status.Code.UNAVAILABLE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
