package dev.veil.testing;

import dev.veil.config.VeilConfig;
import dev.veil.deduction.DeductionService;
import dev.veil.grpc.AdminGrpcServer;
import dev.veil.grpc.AdminListener;
import dev.veil.grpc.DeductionAdminService;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.net.ConnectionLimit;
import dev.veil.observability.Metrics;
import dev.veil.server.Services;
import io.grpc.BindableService;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.MetadataUtils;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An {@link AdminGrpcServer} over an {@link InMemoryNode} with {@code IdentityAdminApi} (and any
 * further admin services), a channel to it and stubs that carry the node's admin key. {@link
 * #inProcess} serves it over gRPC's in-process transport, for tests of what the services answer;
 * {@link #start} on an ephemeral loopback port through the node's own admin listener, for tests of
 * the listener (connections, message sizes, binding) and of clients that dial a port. Close it
 * after each test.
 */
public final class RunningAdminServer implements AutoCloseable {
  /** Where the node's clock starts. */
  public static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final InMemoryNode node;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private final Metrics metrics = new Metrics();
  private final AdminGrpcServer server;
  private final int port;
  private final ManagedChannel channel;
  private final String name;
  private final List<BindableService> admin = new ArrayList<>();

  private RunningAdminServer(
      boolean onPort,
      Function<InMemoryNode, List<BindableService>> extraAdminServices,
      String... settings) {
    this.node = new InMemoryNode(START, TestConfigs.config(settings));
    Services services = node.services();
    admin.add(services.identityAdmin());
    admin.addAll(extraAdminServices.apply(node));
    VeilConfig config = services.config();
    this.name = "admin-" + UUID.randomUUID();
    AdminListener listener =
        onPort
            ? AdminListener.onPort(
                config.grpc(),
                config.connections(),
                ConnectionLimit.forNode(config.connections().maxConnections(), metrics))
            : AdminListener.of(InProcessServerBuilder.forName(name), "in-process server " + name);
    this.server = new AdminGrpcServer(listener, services.authenticator(), admin, executor, metrics);
    this.port = server.start();
    this.channel = newChannel();
  }

  /** {@code IdentityAdminApi} on a loopback port, with the test defaults. */
  public static RunningAdminServer start() {
    return new RunningAdminServer(true, node -> List.of());
  }

  /** {@code IdentityAdminApi} over the in-process transport, with the test defaults. */
  public static RunningAdminServer inProcess() {
    return new RunningAdminServer(false, node -> List.of());
  }

  /**
   * {@code IdentityAdminApi} and {@code extraAdminServices} over the in-process transport,
   * configured by {@code settings} (key, value, ...) over the test defaults.
   */
  public static RunningAdminServer inProcess(
      List<BindableService> extraAdminServices, String... settings) {
    return new RunningAdminServer(false, node -> extraAdminServices, settings);
  }

  /**
   * On a loopback port, a server that also serves {@code extraAdminServices}, configured by {@code
   * settings} (key, value, ...) over the test defaults, e.g. {@code "grpc.max-message-bytes",
   * "1024"}.
   */
  public static RunningAdminServer start(
      List<BindableService> extraAdminServices, String... settings) {
    return new RunningAdminServer(true, node -> extraAdminServices, settings);
  }

  /**
   * {@code IdentityAdminApi} and the services {@code extraAdminServices} makes over the node (its
   * store and clock), over the in-process transport, with the test defaults.
   */
  public static RunningAdminServer inProcessWith(
      Function<InMemoryNode, List<BindableService>> extraAdminServices) {
    return new RunningAdminServer(false, extraAdminServices);
  }

  /** Like {@link #inProcessWith}, on a loopback port. */
  public static RunningAdminServer startWith(
      Function<InMemoryNode, List<BindableService>> extraAdminServices) {
    return new RunningAdminServer(true, extraAdminServices);
  }

  /** {@code DeductionAdminApi} over {@code node}'s store and clock, as a node serves it. */
  public static List<BindableService> deductionAdmin(InMemoryNode node) {
    return List.of(
        new DeductionAdminService(
            new DeductionService(node.store().deductions(), node.services().audit(), node.clock()),
            node.services().audit(),
            node.services().config().dbTimeout(),
            node.services().config().deductions().watchInterval()));
  }

  /** A new channel to the server (the caller closes it). */
  public ManagedChannel newChannel() {
    return port > 0
        ? ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build()
        : InProcessChannelBuilder.forName(name).build();
  }

  /**
   * Inserts a deduction titled {@code title} straight into the store, as another node would: its
   * change is in the deduction log, but this node's watchers are not woken for it.
   */
  public void insertDeductionInStore(String title) {
    node.store()
        .deductions()
        .insert(
            new dev.veil.deduction.NewDeduction(
                title, "", 0, java.util.Optional.empty(), java.util.Optional.empty()),
            START);
  }

  public InMemoryNode node() {
    return node;
  }

  public AdminGrpcServer server() {
    return server;
  }

  /** The bound port; -1 in process. */
  public int port() {
    return port;
  }

  /** The admin calls counted so far ({@code veil_admin_grpc_calls_total} among them). */
  public Metrics metrics() {
    return metrics;
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
    return ClientInterceptors.intercept(
        channel, MetadataUtils.newAttachHeadersInterceptor(headers));
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
    for (BindableService service : admin) {
      if (service instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          throw new IllegalStateException("closing " + service.getClass().getSimpleName(), e);
        }
      }
    }
    server.stop();
    executor.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }
}
