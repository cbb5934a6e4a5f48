package dev.veil.grpc;

import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.common.Causes;
import dev.veil.observability.Metrics;
import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The admin gRPC server (docs/spec.md 6): the admin services it is given ({@code IdentityAdminApi},
 * {@code DeductionAdminApi}), each behind {@link AdminAuthInterceptor} and {@link
 * DomainErrorInterceptor}; the standard health service without a key, and server reflection (v1)
 * behind the same key check, since docs/spec.md 6 exempts only health: a caller without an ADMIN
 * key learns no more of the admin port than that it serves gRPC. Every service, health and
 * reflection included, has {@link MalformedRequestGuard}: bytes that are not a valid request
 * message get INVALID_ARGUMENT, and a compressed request that inflates past the limit
 * RESOURCE_EXHAUSTED. Calls to the admin services are counted by method and status ({@link
 * AdminCallCounter}).
 *
 * <p>Listens where its {@link AdminListener} says: the node's admin port, whose connections and
 * message sizes are bounded there, or an in-process transport in tests of the services. Runs
 * handlers on the given executor, since some of them block on the store. Start once, stop once;
 * {@link #start} and {@link #stop} are thread-safe.
 */
public final class AdminGrpcServer {
  /** Inbound message limit when the configuration gives none (docs/spec.md 11). */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

  private static final long GRACE_SECONDS = 5;

  private final AdminListener listener;
  private final Executor executor;
  private final List<ServerServiceDefinition> adminServices = new ArrayList<>();
  private final ServerServiceDefinition reflection;
  private final HealthStatusManager health = new HealthStatusManager();
  private Server server;
  private boolean stopping;
  private long stopBegan; // System.nanoTime() of beginStop()

  /**
   * A server for {@code adminServices}, which get the admin key check ({@code authenticator}) and
   * error mapping and are reported SERVING by the health service under their names; their calls are
   * counted in {@code metrics} ({@code veil_admin_grpc_calls_total}) and run on {@code executor}.
   */
  public AdminGrpcServer(
      AdminListener listener,
      ApiKeyAuthenticator authenticator,
      List<BindableService> adminServices,
      Executor executor,
      Metrics metrics) {
    this.listener = listener;
    this.executor = executor;
    AdminAuthInterceptor auth = new AdminAuthInterceptor(authenticator, false);
    DomainErrorInterceptor errors = new DomainErrorInterceptor();
    // Unparseable request bytes get INVALID_ARGUMENT instead of grpc-java's UNKNOWN; the guard
    // sits inside the interceptors, so it never runs for a call they already closed.
    List<ServerServiceDefinition> guarded =
        adminServices.stream()
            .map(service -> MalformedRequestGuard.guard(service.bindService()))
            .toList();
    AdminCallCounter counter = new AdminCallCounter(metrics, guarded);
    for (ServerServiceDefinition service : guarded) {
      // The last interceptor listed runs first: count, authenticate, then map errors of the
      // handler.
      this.adminServices.add(ServerInterceptors.intercept(service, errors, auth, counter));
    }
    reflection =
        ServerInterceptors.intercept(
            MalformedRequestGuard.guard(ProtoReflectionServiceV1.newInstance().bindService()),
            new AdminAuthInterceptor(authenticator, true));
  }

  /**
   * Binds and starts serving.
   *
   * @return the bound port (useful when the configured port is 0; -1 for a transport without ports)
   * @throws UncheckedIOException if the address cannot be bound
   * @throws IllegalStateException if already started
   */
  public synchronized int start() {
    if (server != null) {
      throw new IllegalStateException("admin gRPC server already started");
    }
    ServerBuilder<?> builder =
        listener
            .builder()
            // Health reads a status held in memory, so it runs where its call arrives (a method
            // lookup
            // in grpc-java runs on the builder's executor, before a call's own executor is chosen);
            // every other call goes to the workers, since some block on the store. A few slow admin
            // calls (a full salt rotation takes seconds) must not make a node look dead to its
            // monitoring.
            .executor(Runnable::run)
            .callExecutor(
                new ServerCallExecutorSupplier() {
                  @Override
                  public <ReqT, RespT> Executor getExecutor(
                      ServerCall<ReqT, RespT> call, Metadata headers) {
                    return HealthGrpc.SERVICE_NAME.equals(
                            call.getMethodDescriptor().getServiceName())
                        ? null
                        : executor;
                  }
                })
            .addService(MalformedRequestGuard.guard(health.getHealthService().bindService()))
            .addService(reflection)
            .addStreamTracerFactory(
                CallDeadlines.ARRIVALS); // a call's deadline counts from its arrival
    adminServices.forEach(builder::addService);
    Server started = builder.build();
    try {
      started.start();
    } catch (IOException e) {
      listener.release();
      String why =
          Causes.rootMessage(
              e); // the native transport's: "bind(..) failed with error(-98): Address …"
      throw new UncheckedIOException(
          "cannot bind "
              + listener.description()
              + ": "
              + why.substring(why.lastIndexOf(": ") + 1).strip(),
          e);
    }
    server = started;
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
    for (ServerServiceDefinition service : adminServices) {
      health.setStatus(service.getServiceDescriptor().getName(), ServingStatus.SERVING);
    }
    return started.getPort();
  }

  /**
   * Starts a graceful stop and returns at once: health turns NOT_SERVING and new calls are refused,
   * while calls in flight go on. {@link #stop()} then waits for them. Lets a node stop accepting
   * admin calls at the moment it stops accepting HTTP connections, rather than after its HTTP
   * requests in flight have finished. Does nothing if not started or already stopping.
   */
  public synchronized void beginStop() {
    if (server == null || stopping) {
      return;
    }
    stopping = true;
    stopBegan = System.nanoTime();
    health.enterTerminalState();
    server.shutdown();
  }

  /**
   * Stops gracefully: health turns NOT_SERVING, new calls are refused, calls in flight get up to
   * {@value #GRACE_SECONDS} seconds from {@link #beginStop()} (or from now, if it was not called)
   * to finish, then are cancelled. Does nothing if not started.
   */
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    beginStop();
    long left = TimeUnit.SECONDS.toNanos(GRACE_SECONDS) - (System.nanoTime() - stopBegan);
    try {
      if (!server.awaitTermination(Math.max(0, left), TimeUnit.NANOSECONDS)) {
        server.shutdownNow();
        server.awaitTermination(1, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    listener.release();
  }
}
