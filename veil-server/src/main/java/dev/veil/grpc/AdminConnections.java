package dev.veil.grpc;

import dev.veil.net.ConnectionLimit;
import dev.veil.net.ConnectionSlot;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counts the admin port's connections against the node's {@link ConnectionLimit}, shared with the
 * public HTTP listener, and tells it which are busy.
 *
 * <p>A connection is admitted as it is accepted, before gRPC reads anything from it: the listening
 * channel has a handler ahead of the one that hands accepted connections to gRPC, which closes a
 * refused one at once. (grpc-java offers no hook there but the channel factory, so this class also
 * supplies the listener's event loops: one to accept, two to serve, NIO.) A connection is busy
 * while a call is in flight on it, as a stream tracer sees it; waiting otherwise, and so may be
 * shed to let a new connection in. A health {@code Watch}, which lasts as long as its client likes,
 * does not make its connection busy: the watcher reconnects. Calls are found by the connection's
 * remote address, unique among open connections to one local port.
 *
 * <p>Idle and old connections are closed by gRPC itself ({@code grpc.idle-timeout}, {@code
 * grpc.max-connection-age}, see {@link AdminGrpcServer}). Thread-safe; {@link #close} once the
 * server has terminated.
 */
final class AdminConnections {
  private static final String WATCH = HealthGrpc.getWatchMethod().getFullMethodName();
  private static final ServerStreamTracer NOT_COUNTED = new ServerStreamTracer() {};

  private final ConnectionLimit limit;
  private final Map<SocketAddress, ConnectionSlot> slots = new ConcurrentHashMap<>();
  private final Gate gate = new Gate();
  private final EventLoopGroup acceptor =
      new MultiThreadIoEventLoopGroup(1, threads("veil-grpc-accept"), NioIoHandler.newFactory());
  private final EventLoopGroup workers =
      new MultiThreadIoEventLoopGroup(2, threads("veil-grpc-io"), NioIoHandler.newFactory());

  AdminConnections(ConnectionLimit limit) {
    this.limit = limit;
  }

  /** Makes {@code builder}'s server admit its connections here and report its calls. */
  NettyServerBuilder configure(NettyServerBuilder builder) {
    return builder
        .channelFactory(this::newListeningChannel)
        .bossEventLoopGroup(acceptor)
        .workerEventLoopGroup(workers)
        .addStreamTracerFactory(new CallTracers());
  }

  private ServerChannel newListeningChannel() {
    NioServerSocketChannel channel = new NioServerSocketChannel();
    channel.pipeline().addLast(gate); // ahead of the acceptor that the server's bootstrap adds
    return channel;
  }

  /** Stops the event loops; call once the server has terminated. */
  @SuppressWarnings("FutureReturnValueIgnored") // each is waited for here, uninterruptibly
  void close() {
    acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static ThreadFactory threads(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Sees each accepted connection on the listening channel, before gRPC does. */
  @ChannelHandler.Sharable
  private final class Gate extends ChannelInboundHandlerAdapter {
    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // a listener on the close, which cannot fail
    public void channelRead(ChannelHandlerContext ctx, Object accepted) {
      Channel child = (Channel) accepted;
      ConnectionSlot slot = limit.admit(() -> closeAtOnce(child));
      if (slot == null) {
        child.unsafe().closeForcibly(); // not registered yet: closed here, never served
        return;
      }
      child.pipeline().addFirst(new CloseIfShed(slot));
      SocketAddress peer = child.remoteAddress();
      slots.put(peer, slot);
      child
          .closeFuture()
          .addListener(
              closed -> {
                slots.remove(peer, slot);
                slot.release();
              });
      ctx.fireChannelRead(child);
    }
  }

  /**
   * Closes a shed connection at once. Its own {@code close()} would pass through gRPC's handler,
   * which turns it into a graceful shutdown (GOAWAY, then up to 10 s for the client to answer a
   * ping), holding the descriptor that long; closing from the first handler's place skips it. One
   * not yet registered with its event loop is closed as it registers ({@link CloseIfShed}).
   */
  @SuppressWarnings("FutureReturnValueIgnored") // a close that fails leaves nothing to do
  private static void closeAtOnce(Channel child) {
    if (!child.isRegistered()) {
      return;
    }
    ChannelHandlerContext first = child.pipeline().firstContext();
    if (first == null) {
      child.close();
    } else {
      first.close();
    }
  }

  /**
   * Closes the connection as it registers with its event loop if it was shed before, then leaves.
   */
  private static final class CloseIfShed extends ChannelInboundHandlerAdapter {
    private final ConnectionSlot slot;

    CloseIfShed(ConnectionSlot slot) {
      this.slot = slot;
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // a close that fails leaves nothing to do
    public void channelRegistered(ChannelHandlerContext ctx) {
      ctx.pipeline().remove(this);
      if (slot.isShed()) {
        ctx.close();
      } else {
        ctx.fireChannelRegistered();
      }
    }
  }

  /** Marks a connection busy from a call's start to its stream's end. */
  private final class CallTracers extends ServerStreamTracer.Factory {
    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
      return WATCH.equals(fullMethodName) ? NOT_COUNTED : new CallTracer();
    }
  }

  /**
   * One call's tracer. The call starts on its executor while the stream may close on the
   * transport's thread, even first: whichever of the two comes second ends what the other began.
   */
  private final class CallTracer extends ServerStreamTracer {
    private final AtomicReference<ConnectionSlot> busy = new AtomicReference<>();
    private volatile boolean closed;

    @Override
    public void serverCallStarted(ServerCallInfo<?, ?> call) {
      ConnectionSlot slot = slots.get(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
      if (slot != null && slot.busy()) {
        busy.set(slot);
        if (closed && busy.compareAndSet(slot, null)) {
          slot.waiting(System.nanoTime());
        }
      }
    }

    @Override
    public void streamClosed(Status status) {
      closed = true;
      ConnectionSlot slot = busy.getAndSet(null);
      if (slot != null) {
        slot.waiting(System.nanoTime());
      }
    }
  }
}
