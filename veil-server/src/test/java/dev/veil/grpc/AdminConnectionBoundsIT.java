package dev.veil.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.grpc.testing.EchoService;
import dev.veil.testing.RawHttp2;
import dev.veil.testing.RunningAdminServer;
import io.grpc.CallOptions;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin port bounds its connections (docs/spec.md 11, {@link AdminGrpcServer}, {@link
 * AdminConnections}): idle ones and those that never complete the HTTP/2 preface are closed after
 * {@code grpc.idle-timeout}, every one is told to go away after {@code grpc.max-connection-age},
 * and they count against the node's connection limit, which sheds the longest-waiting one for a
 * newcomer but never one with a call in flight.
 */
class AdminConnectionBoundsIT {
  /** gRPC closes an idle connection that does not answer its GOAWAY ping 10 s after the GOAWAY. */
  private static final Duration PING_WAIT = Duration.ofSeconds(10);

  private static final Duration MARGIN = Duration.ofSeconds(5);

  private final EchoService echo = new EchoService();
  private RunningAdminServer server;

  @AfterEach
  void stop() throws InterruptedException {
    echo.release();
    if (server != null) {
      server.close();
    }
  }

  private RunningAdminServer start(String... settings) {
    server = RunningAdminServer.start(List.of(echo), settings);
    return server;
  }

  @Test
  void aConnectionThatSendsNothing_orPartOfThePreface_isClosedAfterTheIdleTimeout() {
    start("grpc.idle-timeout", "1s");
    try (RawHttp2 nothing = RawHttp2.sendingNothing(server.port());
        RawHttp2 partial = RawHttp2.sendingPartOfThePreface(server.port())) {
      assertThat(nothing.closedByServerWithin(Duration.ofSeconds(1).plus(MARGIN))).isTrue();
      assertThat(partial.closedByServerWithin(MARGIN)).isTrue();
    }
  }

  @Test
  void aConnectionIdleAfterThePrefaceAndSettings_isClosedAfterTheIdleTimeout() {
    start("grpc.idle-timeout", "1s");
    try (RawHttp2 idle = RawHttp2.sendingPrefaceAndSettings(server.port())) {
      assertThat(idle.closedByServerWithin(Duration.ofSeconds(1).plus(PING_WAIT).plus(MARGIN)))
          .isTrue();
    }
  }

  @Test
  void aCallLastingPastTheMaxAge_endsAfterTheGrace_withItsConnection() throws Exception {
    start("grpc.max-connection-age", "2s", "grpc.max-connection-age-grace", "1s");
    CompletableFuture<Status> ended = new CompletableFuture<>();
    HealthGrpc.newStub(server.channel())
        .watch(
            HealthCheckRequest.getDefaultInstance(),
            new StreamObserver<>() {
              @Override
              public void onNext(HealthCheckResponse value) {}

              @Override
              public void onError(Throwable t) {
                ended.complete(Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {
                ended.complete(Status.OK);
              }
            });

    // Age (2 s, give or take a tenth: gRPC spreads it) + grace (1 s), and a margin.
    Status status = ended.get(3 + MARGIN.toSeconds(), TimeUnit.SECONDS);

    assertThat(status.getCode())
        .isIn(Status.Code.UNAVAILABLE, Status.Code.CANCELLED, Status.Code.INTERNAL);
  }

  @Test
  void idleConnectionsCountAgainstTheLimit_andTheLongestWaitingIsShedForANewClient()
      throws Exception {
    start("limits.max-connections", "4", "grpc.idle-timeout", "1m"); // shedding above 3
    try (RawHttp2 first = RawHttp2.sendingPrefaceAndSettings(server.port());
        RawHttp2 second = RawHttp2.sendingPrefaceAndSettings(server.port());
        RawHttp2 third = RawHttp2.sendingPrefaceAndSettings(server.port())) {

      assertThat(health()).isEqualTo(ServingStatus.SERVING);
      assertThat(first.closedByServerWithin(MARGIN)).as("the longest waiting, shed").isTrue();
      assertThat(second.closedByServerWithin(Duration.ofMillis(500)))
          .as("a newer one, kept")
          .isFalse();
    }
  }

  @Test
  void aConnectionWithACallInFlight_isNotShed_soANewOneIsRefusedAtTheLimit() throws Exception {
    start("limits.max-connections", "1");
    CompletableFuture<String> slow =
        CompletableFuture.supplyAsync(
            () ->
                ClientCalls.blockingUnaryCall(
                    server.adminChannel(),
                    EchoService.ECHO,
                    CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                    "slow"));
    assertThat(echo.entered().await(10, TimeUnit.SECONDS)).isTrue();

    try (RawHttp2 refused = RawHttp2.sendingPrefaceAndSettings(server.port())) {
      assertThat(refused.closedByServerWithin(MARGIN))
          .as("refused: the only connection is busy")
          .isTrue();
    }
    echo.release();
    assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo("slow");
  }

  private ServingStatus health() {
    return HealthGrpc.newBlockingStub(server.channel())
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance())
        .getStatus();
  }
}
