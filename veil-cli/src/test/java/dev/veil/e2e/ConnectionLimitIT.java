package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.http.testing.RawHttp;
import dev.veil.server.VeilServer;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.RawHttp2;
import dev.veil.testing.ServerProcess;
import dev.veil.testing.TestConfigs;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's connection limit ({@code limits.max-connections}, by default what the process's file
 * descriptors allow) holds over both listeners, and at the limit a good client is still answered:
 * the longest-waiting connections are shed for it. Without the limit, a node under {@code ulimit -n
 * 256} flooded with slow requests stops accepting ("Too many open files") and good clients fail.
 */
class ConnectionLimitIT {
  private static final Duration SOON = Duration.ofSeconds(5);
  private static final String SLOW_BODY_HEAD =
      "POST /v1/token/refresh HTTP/1.1\r\nHost: x\r\n"
          + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{";

  @TempDir Path dataDir;

  @Test
  void idleAdminConnections_countAgainstTheLimitOfTheHttpListenerToo() throws Exception {
    InMemoryStores stores = new InMemoryStores();
    // Shedding above 3 (ConnectionLimit's high-water mark).
    try (VeilServer node =
        VeilServer.start(
            TestConfigs.config("limits.max-connections", "4"),
            MutableClock.at("2026-03-01T12:00:00Z"),
            stores)) {
      List<RawHttp2> idle = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          RawHttp2 connection = RawHttp2.sendingPrefaceAndSettings(node.grpcPort());
          idle.add(connection);
          // Admitted by the node, not only queued by the kernel, before the next one connects.
          assertThat(connection.serverSpokeWithin(SOON))
              .as("admin connection %d set up", i)
              .isTrue();
        }
        try (RawHttp http = RawHttp.connect(node.httpPort())) {
          assertThat(http.write("GET /ops/readyz HTTP/1.1\r\nHost: x\r\n\r\n").readResponse())
              .startsWith("HTTP/1.1 200");
          assertThat(idle.get(0).closedByServerWithin(SOON))
              .as("the longest-waiting admin connection, shed")
              .isTrue();

          assertThat(idle.get(1).closedByServerWithin(Duration.ofMillis(500)))
              .as("a newer one, kept")
              .isFalse();
          String metrics = http.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").readResponse();
          assertThat(metrics)
              .contains("veil_connections_max 4", "veil_connections_shed_total 1")
              .containsPattern("veil_connections_open [34]\n");
        }
      } finally {
        idle.forEach(RawHttp2::close);
      }
    }
  }

  /**
   * A node whose descriptors (256) allow about 80 connections (ConnectionLimit's log line tells)
   * while 300 and more clients hold connections sending a body one byte at a time. They arrive a
   * few dozen at a time. A burst faster than the node can close the connections it sheds is partly
   * refused (ConnectionLimit's design note), a good client's connection included now and then: the
   * good client here, as real ones do, retries a connection refused cleanly (reset, or closed
   * before any answer), up to twice. A connection the node never accepts, as when it is out of
   * descriptors, is no clean refusal: the read times out and the test fails.
   */
  @Test
  void nearlyOutOfDescriptors_underAFloodOfSlowRequests_goodClientsAndReadinessAreStillAnswered()
      throws Exception {
    try (ServerProcess server =
        ServerProcess.startWithDescriptorLimit(256, dataDir, "--set", "salt.buckets=1024")) {
      String generator = generatorKey(server);
      List<Socket> flood = new ArrayList<>();
      try {
        for (int i = 0; i < 15; i++) {
          flood(server.httpPort(), 20, flood);
        }
        for (int round = 0; round < 10; round++) {
          flood(server.httpPort(), 20, flood);

          int port = server.httpPort();
          assertThat(retried(() -> get(port, "/ops/readyz")))
              .as("round " + round)
              .startsWith("HTTP/1.1 200");
          assertThat(retried(() -> generate(port, generator)))
              .as("round " + round)
              .startsWith("HTTP/1.1 200")
              .contains("\"advertising_token\"");
          assertThat(grpcHealth(server.grpcPort()))
              .as("round " + round)
              .isEqualTo(ServingStatus.SERVING);
        }
        assertThat(retried(() -> get(server.httpPort(), "/metrics")))
            .containsPattern("veil_connections_shed_total [1-9]");
      } finally {
        for (Socket socket : flood) {
          socket.close();
        }
      }
      assertThat(server.output()).noneMatch(line -> line.contains("Too many open files"));
    }
  }

  private String generatorKey(ServerProcess server) throws Exception {
    String adminKey = Files.readString(dataDir.resolve("admin.key")).strip();
    try (IdentityAdminClient admin = new IdentityAdminClient(server.grpcPort(), adminKey)) {
      return admin.createClient("publisher", "GENERATOR").getApiKey();
    }
  }

  /**
   * Opens {@code count} connections that each send a request head and one byte of a long body, then
   * gives the node a moment to close the connections it shed for them.
   */
  private static void flood(int port, int count, List<Socket> into) throws InterruptedException {
    for (int i = 0; i < count; i++) {
      try {
        Socket socket = new Socket();
        into.add(socket);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
        OutputStream out = socket.getOutputStream();
        out.write(SLOW_BODY_HEAD.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
      } catch (IOException shedOrNotAccepted) {
        // what becomes of the flood's own connections is not what this test looks at
      }
    }
    TimeUnit.MILLISECONDS.sleep(250);
  }

  /** {@code request}'s answer; a clean refusal is retried up to twice, 250 ms apart. */
  private static String retried(Supplier<String> request) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        String response = request.get();
        if (!response.isEmpty() || attempt == 3) {
          return response;
        }
      } catch (UncheckedIOException e) {
        if (!(e.getCause() instanceof SocketException) || attempt == 3) {
          throw e; // a read that timed out is not a refusal
        }
      }
      TimeUnit.MILLISECONDS.sleep(250);
    }
  }

  private static String get(int port, String path) {
    try (RawHttp http = RawHttp.connect(port)) {
      return http.write("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
          .readResponse();
    }
  }

  private static String generate(int port, String key) {
    String body = "{\"email\":\"good.client@example.com\"}";
    try (RawHttp http = RawHttp.connect(port)) {
      return http.write(
              "POST /v1/token/generate HTTP/1.1\r\n"
                  + "Host: x\r\n"
                  + "Connection: close\r\n"
                  + "Authorization: Bearer "
                  + key
                  + "\r\nContent-Type: application/json\r\nContent-Length: "
                  + body.length()
                  + "\r\n\r\n"
                  + body)
          .readResponse();
    }
  }

  /**
   * The health check's status; a refused connection (UNAVAILABLE) is retried up to twice, 250 ms
   * apart.
   */
  private static ServingStatus grpcHealth(int port) throws InterruptedException {
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      for (int attempt = 1; ; attempt++) {
        try {
          return HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .check(HealthCheckRequest.getDefaultInstance())
              .getStatus();
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt == 3) {
            throw e;
          }
        }
        TimeUnit.MILLISECONDS.sleep(250);
      }
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
