package dev.veil.testing;

import dev.veil.grpc.AdminGrpcServer;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import io.grpc.BindableService;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An {@link AdminGrpcServer} on an ephemeral loopback port over an {@link InMemoryNode}, with a
 * plaintext channel to it and stubs that carry the node's admin key. Close it after each test.
 */
public final class RunningAdminServer implements AutoCloseable {
  /** Where the node's clock starts. */
  public static final Instant START = Instant.parse("2026-03-01T12:00:00Z");
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final InMemoryNode node;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final AdminGrpcServer server;
  private final int port;
  private final ManagedChannel channel;

  private RunningAdminServer(List<BindableService> extraAdminServices, String... settings) {
    this.node = new InMemoryNode(START, TestConfigs.config(settings));
    this.server = new AdminGrpcServer(node.services().config().grpc(), node.services(), executor, extraAdminServices);
    this.port = server.start();
    this.channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  /** A server for {@code IdentityAdminApi} with the test defaults. */
  public static RunningAdminServer start() {
    return new RunningAdminServer(List.of());
  }

  /**
   * A server that also serves {@code extraAdminServices}, configured by {@code settings} (key, value,
   * ...) over the test defaults, e.g. {@code "grpc.max-message-bytes", "1024"}.
   */
  public static RunningAdminServer start(List<BindableService> extraAdminServices, String... settings) {
    return new RunningAdminServer(extraAdminServices, settings);
  }

  public InMemoryNode node() {
    return node;
  }

  public AdminGrpcServer server() {
    return server;
  }

  public int port() {
    return port;
  }

  public String adminKey() {
    return node.adminKey();
  }

  public ManagedChannel channel() {
    return channel;
  }

  /** The channel with every call sending {@code authorization: Bearer <admin key>}. */
  public Channel adminChannel() {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + adminKey());
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  /** A stub that sends {@code authorization: Bearer <admin key>}. */
  public IdentityAdminApiBlockingStub admin() {
    return withAuthorization("Bearer " + adminKey());
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
