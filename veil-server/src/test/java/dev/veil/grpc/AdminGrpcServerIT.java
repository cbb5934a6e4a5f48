package dev.veil.grpc;

import static dev.veil.grpc.testing.Statuses.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.veil.client.Role;
import dev.veil.config.VeilConfig;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.grpc.identity.admin.v1.CreateClientRequest;
import dev.veil.grpc.identity.admin.v1.Identity;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.ListClientsRequest;
import dev.veil.grpc.identity.admin.v1.ListKeysRequest;
import dev.veil.grpc.identity.admin.v1.LookupOptOutRequest;
import dev.veil.grpc.identity.admin.v1.RecordOptOutRequest;
import dev.veil.grpc.identity.admin.v1.RotateSaltsRequest;
import dev.veil.grpc.testing.EchoService;
import dev.veil.grpc.testing.Reflection;
import dev.veil.net.ConnectionLimit;
import dev.veil.observability.Metrics;
import dev.veil.server.Services;
import dev.veil.server.VeilServer;
import dev.veil.testing.CapturedLogs;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.RunningAdminServer;
import dev.veil.testing.TestConfigs;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener as a whole: authentication, health, reflection, limits, store failures, lifecycle.
 */
class AdminGrpcServerIT {
  private static final String UNKNOWN_KEY =
      "vk1.AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  private static final ListClientsRequest LIST = ListClientsRequest.getDefaultInstance();

  private final EchoService echo = new EchoService();
  private final RunningAdminServer server = RunningAdminServer.start(List.of(echo));

  @AfterEach
  void stop() throws InterruptedException {
    echo.release();
    server.close();
  }

  private static RecordOptOutRequest optOut(String email) {
    return RecordOptOutRequest.newBuilder()
        .setIdentity(Identity.newBuilder().setEmail(email))
        .build();
  }

  // --- authentication ---

  @Test
  void call_withoutKey_isUnauthenticated() {
    Status status = statusOf(() -> server.anonymous().listClients(LIST));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(status.getDescription()).contains("authorization: Bearer");
  }

  @Test
  void call_withUnknownKey_isUnauthenticated() {
    Status status =
        statusOf(() -> server.withAuthorization("Bearer " + UNKNOWN_KEY).listClients(LIST));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  @Test
  void call_withMalformedAuthorization_isUnauthenticated() {
    for (String header :
        List.of(
            "Basic dXNlcjpwYXNz",
            "Bearer",
            "Bearer not-a-key",
            server.adminKey(),
            "Bearer " + server.adminKey() + "x")) {
      Status status = statusOf(() -> server.withAuthorization(header).listClients(LIST));

      assertThat(status.getCode()).as(header).isEqualTo(Status.Code.UNAUTHENTICATED);
    }
  }

  @Test
  void call_withBearerInAnyCase_isAccepted() {
    assertThat(
            server
                .withAuthorization("bEaReR " + server.adminKey())
                .listClients(LIST)
                .getClientsCount())
        .isEqualTo(1);
  }

  @Test
  void call_withKeyWithoutAdminRole_isPermissionDenied() {
    String mapperKey =
        server.node().newClientKey("mapper", Role.MAPPER, Role.GENERATOR, Role.OPTOUT);

    Status list = statusOf(() -> server.withAuthorization("Bearer " + mapperKey).listClients(LIST));
    Status optOut =
        statusOf(
            () -> server.withAuthorization("Bearer " + mapperKey).recordOptOut(optOut("a@b.com")));

    assertThat(list.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(list.getDescription()).contains("ADMIN");
    assertThat(optOut.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(server.node().services().optOuts().size()).isZero();
  }

  @Test
  void call_withoutKey_isRefusedBeforeItsInputIsLookedAt() {
    Status status =
        statusOf(() -> server.anonymous().rotateSalts(RotateSaltsRequest.getDefaultInstance()));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  // --- health and reflection ---

  @Test
  void health_withoutKey_reportsServing() {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(server.channel());

    assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(ServingStatus.SERVING);
    assertThat(
            health
                .check(
                    HealthCheckRequest.newBuilder()
                        .setService(IdentityAdminApiGrpc.SERVICE_NAME)
                        .build())
                .getStatus())
        .isEqualTo(ServingStatus.SERVING);
    assertThat(
            health
                .check(HealthCheckRequest.newBuilder().setService(EchoService.SERVICE).build())
                .getStatus())
        .isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void health_answersWhileEveryAdminWorkerIsBusy() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService oneWorker = Executors.newSingleThreadExecutor();
    oneWorker.execute(
        () -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    AdminGrpcServer busy = onLoopback(server.node().services(), 0, oneWorker);
    ManagedChannel channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", busy.start()).usePlaintext().build();
    try {
      Metadata auth = new Metadata();
      auth.put(RunningAdminServer.AUTHORIZATION, "Bearer " + server.adminKey());
      Status adminCall =
          statusOf(
              () ->
                  IdentityAdminApiGrpc.newBlockingStub(channel)
                      .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(auth))
                      .withDeadlineAfter(300, TimeUnit.MILLISECONDS)
                      .listClients(LIST));

      assertThat(adminCall.getCode())
          .isEqualTo(Status.Code.DEADLINE_EXCEEDED); // waits for the worker
      assertThat(
              HealthGrpc.newBlockingStub(channel)
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .check(HealthCheckRequest.getDefaultInstance())
                  .getStatus())
          .isEqualTo(ServingStatus.SERVING);
    } finally {
      release.countDown();
      channel.shutdownNow();
      busy.stop();
      oneWorker.shutdownNow();
    }
  }

  /**
   * A write that waits for a busy admin worker longer than db.timeout is refused when it gets one,
   * without touching the store: its deadline counts from its arrival, not from when a worker took
   * it. The node here has a real (embedded) store, which is what refuses a late call.
   */
  @Test
  void aWriteQueuedForAWorkerPastDbTimeout_isRefusedWithoutWriting(@TempDir Path dir)
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService oneWorker = Executors.newSingleThreadExecutor();
    oneWorker.execute(
        () -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    VeilConfig config =
        TestConfigs.config("db", dir.resolve("veil.db").toString(), "db.timeout", "1s");
    try (VeilServer node = VeilServer.start(config, Clock.systemUTC())) {
      AdminGrpcServer busy = onLoopback(node.services(), 0, oneWorker);
      ManagedChannel channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", busy.start()).usePlaintext().build();
      try {
        Metadata auth = new Metadata();
        auth.put(
            RunningAdminServer.AUTHORIZATION, "Bearer " + node.bootstrapAdminKey().orElseThrow());
        CompletableFuture<Status> queued =
            CompletableFuture.supplyAsync(
                () ->
                    statusOf(
                        () ->
                            IdentityAdminApiGrpc.newBlockingStub(channel)
                                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(auth))
                                .withDeadlineAfter(30, TimeUnit.SECONDS)
                                .recordOptOut(optOut("queued@example.com"))));
        Thread.sleep(1_500); // longer than db.timeout, with the call waiting for the one worker
        release.countDown();

        assertThat(queued.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(
                node.services()
                    .optOuts()
                    .lookup(
                        node.services()
                            .mapper()
                            .firstLevelHash(
                                IdentityHash.parse(IdentityInput.EMAIL, "queued@example.com"))))
            .isEmpty();
      } finally {
        release.countDown();
        channel.shutdownNow();
        busy.stop();
        oneWorker.shutdownNow();
      }
    }
  }

  @Test
  void reflection_withAdminKey_listsTheAdminService() throws Exception {
    ServerReflectionResponse answer =
        Reflection.ask(
            server.adminChannel(),
            ServerReflectionRequest.newBuilder().setListServices("").build());

    List<String> services =
        answer.getListServicesResponse().getServiceList().stream()
            .map(ServiceResponse::getName)
            .toList();

    assertThat(services).contains(IdentityAdminApiGrpc.SERVICE_NAME, "grpc.health.v1.Health");
  }

  @Test
  void reflection_withoutAnAdminKey_isRefusedLikeAnAdminRpc() {
    String mapperKey = server.node().newClientKey("mapper", Role.MAPPER);
    Metadata mapper = new Metadata();
    mapper.put(RunningAdminServer.AUTHORIZATION, "Bearer " + mapperKey);
    ServerReflectionRequest list = ServerReflectionRequest.newBuilder().setListServices("").build();

    Throwable anonymous = catchThrowable(() -> Reflection.ask(server.channel(), list));
    Throwable withoutRole =
        catchThrowable(
            () ->
                Reflection.ask(
                    ClientInterceptors.intercept(
                        server.channel(), MetadataUtils.newAttachHeadersInterceptor(mapper)),
                    list));

    assertThat(anonymous).as("reflection without a key").isNotNull();
    assertThat(withoutRole).as("reflection with a MAPPER key").isNotNull();
    assertThat(Status.fromThrowable(anonymous).getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(Status.fromThrowable(withoutRole).getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
  }

  // --- limits ---

  @Test
  void message_overTheDefaultLimit_isResourceExhausted_andTheServerKeepsServing() {
    String fiveMiB = "x".repeat(5 * 1024 * 1024);

    Status status =
        statusOf(
            () ->
                server
                    .admin()
                    .createClient(
                        CreateClientRequest.newBuilder()
                            .setName(fiveMiB)
                            .addRoles("MAPPER")
                            .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.admin().listClients(LIST).getClientsCount()).isEqualTo(1);
  }

  @Test
  void compressedMessage_overTheLimitInflated_isResourceExhausted_andTheServerServesOn() {
    String fiveMiB =
        "x".repeat(5 * 1024 * 1024); // about 5 KiB once gzipped: under the limit on the wire

    Status status =
        statusOf(
            () ->
                server
                    .admin()
                    .withCompression("gzip")
                    .createClient(
                        CreateClientRequest.newBuilder()
                            .setName(fiveMiB)
                            .addRoles("MAPPER")
                            .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("message size limit").doesNotContain("xxxx");
    assertThat(server.admin().listClients(LIST).getClientsCount()).isEqualTo(1);
  }

  @Test
  void compressedHealthCheck_inflatingOverTheLimit_isResourceExhausted_withoutAKey() {
    HealthGrpc.HealthBlockingStub health =
        HealthGrpc.newBlockingStub(server.channel()).withCompression("gzip");

    Status status =
        statusOf(
            () ->
                health.check(
                    HealthCheckRequest.newBuilder()
                        .setService("x".repeat(5 * 1024 * 1024))
                        .build()));

    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus())
        .isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void message_overAConfiguredLimit_isResourceExhausted() throws InterruptedException {
    try (RunningAdminServer small =
        RunningAdminServer.start(List.of(), "grpc.max-message-bytes", "1024")) {
      Status status =
          statusOf(
              () ->
                  small
                      .admin()
                      .createClient(
                          CreateClientRequest.newBuilder()
                              .setName("y".repeat(2048))
                              .addRoles("MAPPER")
                              .build()));

      assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }
  }

  @Test
  void requestBytes_thatAreNotProtobuf_areInvalidArgument_andNotEchoed() {
    // Field 1 (string) claims 100 bytes, 3 follow: not a valid CreateClientRequest.
    byte[] garbage = {0x0a, 0x64, 'j', 'a', 'n'};
    MethodDescriptor<byte[], byte[]> raw =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(IdentityAdminApiGrpc.getCreateClientMethod().getFullMethodName())
            .setRequestMarshaller(new RawBytes())
            .setResponseMarshaller(new RawBytes())
            .build();
    Metadata auth = new Metadata();
    auth.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + server.adminKey());
    Channel channel =
        ClientInterceptors.intercept(
            server.channel(), MetadataUtils.newAttachHeadersInterceptor(auth));

    Status status =
        statusOf(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel,
                    raw,
                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                    garbage));

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("CreateClient").doesNotContain("jan");
    assertThat(server.admin().listClients(LIST).getClientsCount()).isEqualTo(1);
  }

  @Test
  void requestBytes_thatAreNotProtobuf_withoutKey_areStillUnauthenticated() {
    MethodDescriptor<byte[], byte[]> raw =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(IdentityAdminApiGrpc.getListClientsMethod().getFullMethodName())
            .setRequestMarshaller(new RawBytes())
            .setResponseMarshaller(new RawBytes())
            .build();

    Status status =
        statusOf(
            () ->
                ClientCalls.blockingUnaryCall(
                    server.channel(),
                    raw,
                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                    new byte[] {(byte) 0xff}));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  /** Sends and receives bytes as they are. */
  private static final class RawBytes implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  // --- store failures ---

  @Test
  void storeOutage_isUnavailable_andTheServerKeepsServing() {
    server.node().store().setDown(true);

    Status record = statusOf(() -> server.admin().recordOptOut(optOut("jane@example.com")));
    Status lookup =
        statusOf(
            () ->
                server
                    .admin()
                    .lookupOptOut(
                        LookupOptOutRequest.newBuilder()
                            .setIdentity(Identity.newBuilder().setEmail("jane@example.com"))
                            .build()));

    assertThat(record.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(record.getDescription())
        .startsWith("storage unavailable")
        .doesNotContain("connection refused");
    assertThat(lookup.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(server.admin().listClients(LIST).getClientsCount()).isEqualTo(1);
    assertThat(server.admin().listKeys(ListKeysRequest.getDefaultInstance()).getKeysCount())
        .isEqualTo(3);

    server.node().store().setDown(false);

    assertThat(server.admin().recordOptOut(optOut("jane@example.com")).getOptedOutMs())
        .isPositive();
  }

  @Test
  void storeOutage_isLoggedWithTheStoresReason_withoutTheIdentity() {
    try (CapturedLogs logs = CapturedLogs.of(DomainErrorInterceptor.class)) {
      server.node().store().setDown(true);

      assertThat(statusOf(() -> server.admin().recordOptOut(optOut("jane@example.com"))).getCode())
          .isEqualTo(Status.Code.UNAVAILABLE);

      assertThat(logs.messages())
          .singleElement()
          .satisfies(
              message ->
                  assertThat(message)
                      .startsWith(
                          "event=store_unavailable"
                              + " method=protocol.identity.admin.v1.IdentityAdminApi/RecordOptOut")
                      .contains("detail=\"" + InMemoryStores.OUTAGE_MESSAGE + "\"")
                      .doesNotContain("jane"));
    } finally {
      server.node().store().setDown(false);
    }
  }

  @Test
  void unexpectedFault_isInternalWithoutDetail_andTheServerKeepsServing() {
    server
        .node()
        .store()
        .failCalls(call -> true, () -> new IllegalStateException("boom for jane@example.com"));

    Status status = statusOf(() -> server.admin().recordOptOut(optOut("jane@example.com")));

    assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(status.getDescription()).isEqualTo("internal error");
    assertThat(server.admin().listClients(LIST).getClientsCount()).isEqualTo(1);
  }

  // --- further admin services ---

  @Test
  void extraAdminService_sitsBehindTheSameKeyCheckAndErrorMapping() {
    Channel anonymous = server.channel();
    Channel authorized = authorizedChannel();

    Status refused = statusOf(() -> echo(anonymous, "hi"));
    Status notFound = statusOf(() -> echo(authorized, "missing"));

    assertThat(refused.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(echo(authorized, "hi")).isEqualTo("hi");
    assertThat(notFound.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(notFound.getDescription()).isEqualTo("no such record");
  }

  private static String echo(Channel channel, String text) {
    return ClientCalls.blockingUnaryCall(
        channel,
        EchoService.ECHO,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
        text);
  }

  // --- lifecycle ---

  @Test
  void stop_letsCallsInFlightFinish_andRefusesNewOnes() throws Exception {
    Channel authorized = authorizedChannel();
    CompletableFuture<String> inFlight =
        CompletableFuture.supplyAsync(() -> echo(authorized, "slow"));
    assertThat(echo.entered().await(10, TimeUnit.SECONDS)).isTrue();
    AtomicReference<Throwable> stopFailure = new AtomicReference<>();
    Thread stopper =
        new Thread(
            () -> {
              try {
                server.server().stop();
              } catch (Throwable t) {
                stopFailure.set(t);
              }
            });
    stopper.start();

    Status refused = awaitRefusal();
    echo.release();

    assertThat(refused.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(inFlight.get(10, TimeUnit.SECONDS)).isEqualTo("slow");
    stopper.join(10_000);
    assertThat(stopper.isAlive()).isFalse();
    assertThat(stopFailure.get()).isNull();
  }

  /** New calls on a fresh channel, until the stopping server refuses one. */
  private Status awaitRefusal() {
    for (int attempt = 0; attempt < 10_000; attempt++) {
      ManagedChannel channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
      try {
        HealthGrpc.newBlockingStub(channel)
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .check(HealthCheckRequest.getDefaultInstance());
      } catch (StatusRuntimeException e) {
        return e.getStatus();
      } finally {
        channel.shutdownNow();
      }
    }
    throw new AssertionError("the server never refused a new call");
  }

  /**
   * A second admin server for {@code IdentityAdminApi} over {@code services}, on 127.0.0.1:{@code
   * port}.
   */
  private static AdminGrpcServer onLoopback(Services services, int port, Executor executor) {
    Metrics metrics = new Metrics();
    VeilConfig.Connections bounds = services.config().connections();
    AdminListener listener =
        AdminListener.onPort(
            new VeilConfig.Grpc("127.0.0.1", port, 0),
            bounds,
            ConnectionLimit.forNode(bounds.maxConnections(), metrics));
    return new AdminGrpcServer(
        listener, services.authenticator(), List.of(services.identityAdmin()), executor, metrics);
  }

  private Channel authorizedChannel() {
    Metadata auth = new Metadata();
    auth.put(RunningAdminServer.AUTHORIZATION, "Bearer " + server.adminKey());
    return ClientInterceptors.intercept(
        server.channel(), MetadataUtils.newAttachHeadersInterceptor(auth));
  }

  @Test
  void start_onAPortInUse_failsNamingTheSetting() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      AdminGrpcServer second =
          onLoopback(server.node().services(), taken.getLocalPort(), Runnable::run);

      assertThatThrownBy(second::start)
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("grpc.port");
    }
  }

  @Test
  void start_twice_isRefused() {
    assertThatThrownBy(() -> server.server().start()).isInstanceOf(IllegalStateException.class);
  }
}
