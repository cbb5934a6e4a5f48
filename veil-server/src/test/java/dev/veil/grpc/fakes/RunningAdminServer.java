package dev.veil.grpc.fakes;

import dev.veil.client.Role;
import dev.veil.config.VeilConfig;
import dev.veil.grpc.AdminGrpcServer;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An {@link AdminGrpcServer} on an ephemeral loopback port over a {@link FakeNode}, with an admin
 * key and a plaintext channel to it. Close it after each test.
 */
public final class RunningAdminServer implements AutoCloseable {
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final FakeNode node;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final AdminGrpcServer server;
  private final int port;
  private final String adminKey;
  private final ManagedChannel channel;

  public RunningAdminServer() {
    this(new FakeNode(), 0, List.of());
  }

  /**
   * @param maxMessageBytes the configured message limit (0 for the default)
   */
  public RunningAdminServer(FakeNode node, int maxMessageBytes, List<BindableService> extraAdminServices) {
    this.node = node;
    this.adminKey = node.newClientKey("test admin", Role.ADMIN);
    this.server = new AdminGrpcServer(
        new VeilConfig.Grpc("127.0.0.1", 0, maxMessageBytes), node.services(), executor, extraAdminServices);
    this.port = server.start();
    this.channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  public FakeNode node() {
    return node;
  }

  public AdminGrpcServer server() {
    return server;
  }

  public int port() {
    return port;
  }

  public String adminKey() {
    return adminKey;
  }

  public ManagedChannel channel() {
    return channel;
  }

  /** A stub that sends {@code authorization: Bearer <admin key>}. */
  public IdentityAdminApiBlockingStub admin() {
    return withAuthorization("Bearer " + adminKey);
  }

  /** A stub that sends no authorization metadata. */
  public IdentityAdminApiBlockingStub anonymous() {
    return IdentityAdminApiGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  /** A stub that sends this exact authorization value. */
  public IdentityAdminApiBlockingStub withAuthorization(String value) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, value);
    return anonymous().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    server.stop();
    executor.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }
}
