package dev.veil.grpc;

import dev.veil.config.VeilConfig;
import dev.veil.net.ConnectionLimit;
import io.grpc.ServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Where an {@link AdminGrpcServer} listens: a gRPC server builder with the transport already
 * chosen, a description of it for error messages, and what to release once the server has
 * terminated. {@link #onPort} is the node's admin port; {@link #of} takes any builder, such as an
 * in-process one in tests of the services themselves.
 */
public final class AdminListener {
  private final ServerBuilder<?> builder;
  private final String description;
  private final Runnable release;

  private AdminListener(ServerBuilder<?> builder, String description, Runnable release) {
    this.builder = builder;
    this.description = description;
    this.release = release;
  }

  /**
   * The admin port ({@code grpc.host}, {@code grpc.port}), binding only that address, with inbound
   * messages capped at {@code grpc.max-message-bytes} ({@value
   * AdminGrpcServer#DEFAULT_MAX_MESSAGE_BYTES} bytes when not positive; larger calls fail with
   * RESOURCE_EXHAUSTED) and its connections bounded (docs/spec.md 11): each counts against {@code
   * connectionLimit}, shared with the node's other listeners ({@link AdminConnections}); one
   * without a call in flight for {@code grpc.idle-timeout}, or without a complete HTTP/2 preface by
   * then, is closed (gRPC sends GOAWAY and closes it at the latest 10 s later, if the client does
   * not answer its ping); and every connection is told to go away after {@code
   * grpc.max-connection-age}, its calls in flight then getting {@code
   * grpc.max-connection-age-grace} to finish.
   */
  public static AdminListener onPort(
      VeilConfig.Grpc config, VeilConfig.Connections bounds, ConnectionLimit connectionLimit) {
    int maxMessageBytes =
        config.maxMessageBytes() > 0
            ? config.maxMessageBytes()
            : AdminGrpcServer.DEFAULT_MAX_MESSAGE_BYTES;
    long idle = bounds.grpcIdleTimeout().toMillis();
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(config.host(), config.port()))
            .maxInboundMessageSize(maxMessageBytes)
            .maxConnectionIdle(idle, TimeUnit.MILLISECONDS)
            .handshakeTimeout(idle, TimeUnit.MILLISECONDS)
            .maxConnectionAge(bounds.grpcMaxAge().toMillis(), TimeUnit.MILLISECONDS)
            .maxConnectionAgeGrace(bounds.grpcMaxAgeGrace().toMillis(), TimeUnit.MILLISECONDS);
    AdminConnections connections = new AdminConnections(connectionLimit);
    return new AdminListener(
        connections.configure(builder),
        "the admin gRPC port " + config.host() + ":" + config.port() + " (grpc.host, grpc.port)",
        connections::close);
  }

  /**
   * Any other transport: {@code builder} as given, described as {@code description}, nothing to
   * release.
   */
  public static AdminListener of(ServerBuilder<?> builder, String description) {
    return new AdminListener(builder, description, () -> {});
  }

  ServerBuilder<?> builder() {
    return builder;
  }

  String description() {
    return description;
  }

  /** Releases what the transport holds (event loops); call once the server has terminated. */
  void release() {
    release.run();
  }
}
