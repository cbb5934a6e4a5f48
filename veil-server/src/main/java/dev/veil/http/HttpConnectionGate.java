package dev.veil.http;

import dev.veil.net.ConnectionLimit;
import dev.veil.net.ConnectionSlot;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ServerChannel;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.transport.Transport;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Admits the connections of a Vert.x instance's listeners against the node's {@link
 * ConnectionLimit} the moment they are accepted, before Vert.x sets them up or reads from them: the
 * limit must hold at {@code accept}, where running out of descriptors fails ("Too many open
 * files"). Vert.x accepts on one thread and sets connections up on others, so a gate any later
 * would let a burst of connections pile up past the limit, accepted but not yet counted.
 *
 * <p>The gate sits on each listening channel, ahead of the handler that hands accepted connections
 * to Vert.x: its {@link #transport()} is Vert.x's NIO transport with the gate added to every
 * listening channel it makes (pass it to {@code Vertx.builder().withTransport}). A refused
 * connection is closed there; an admitted one is handed on, and its slot released when it closes. A
 * listener finds a connection's slot by the connection's remote address ({@link #slotOf}), unique
 * among open connections to one port. Every listener of that Vert.x instance is gated (the demo
 * site's too: its descriptors count as well).
 *
 * <p>The limit is given once, after Vert.x has started ({@link #admitAgainst}) but before anything
 * listens: Vert.x starts while the node loads its store, and the limit's default is read from the
 * descriptors in use once both are done. Up to 16 connections accepted in one read of the listening
 * socket exist before the gate sees them (Netty's default for listening channels), which the
 * limit's reserve covers. Thread-safe.
 */
public final class HttpConnectionGate {
  private final Map<String, ConnectionSlot> admitted = new ConcurrentHashMap<>();
  private final Gate gate = new Gate();
  private volatile ConnectionLimit limit;

  /**
   * Sets the limit connections are admitted against; once, before any listener of the transport
   * listens.
   */
  public void admitAgainst(ConnectionLimit connectionLimit) {
    if (limit != null) {
      throw new IllegalStateException("the gate already has its connection limit");
    }
    limit = connectionLimit;
  }

  /** Vert.x's NIO transport, with this gate on every listening channel. */
  public Transport transport() {
    return new GatedTransport(Transport.NIO.implementation(), this::gated);
  }

  private ServerChannel gated(ServerChannel listening) {
    listening.pipeline().addLast(gate); // ahead of the acceptor that the server's bootstrap adds
    return listening;
  }

  /** The slot of {@code connection}, or null if it was shed or closed before Vert.x set it up. */
  ConnectionSlot slotOf(HttpConnection connection) {
    SocketAddress remote = connection.remoteAddress();
    return remote == null ? null : admitted.get(remote.hostAddress() + ':' + remote.port());
  }

  /**
   * Closes a shed connection; one not yet registered with its event loop is closed as it registers.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // a close that fails leaves nothing to do
  private static void closeShed(Channel child) {
    if (child.isRegistered()) {
      child.close();
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

  /** Sees each accepted connection on a listening channel, before Vert.x does. */
  @ChannelHandler.Sharable
  private final class Gate extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object accepted) {
      Channel child = (Channel) accepted;
      ConnectionLimit connectionLimit = limit;
      if (connectionLimit == null) {
        child.unsafe().closeForcibly();
        throw new IllegalStateException(
            "a listener listens before the gate has its connection limit");
      }
      ConnectionSlot slot = connectionLimit.admit(() -> closeShed(child));
      if (slot == null) {
        child.unsafe().closeForcibly(); // not registered yet: closed here, never served
        return;
      }
      child.pipeline().addFirst(new CloseIfShed(slot));
      String peer =
          child.remoteAddress() instanceof InetSocketAddress inet
              ? inet.getAddress().getHostAddress() + ':' + inet.getPort()
              : String.valueOf(child.remoteAddress());
      admitted.put(peer, slot);
      child
          .closeFuture()
          .addListener(
              closed -> {
                admitted.remove(peer, slot);
                slot.release();
              });
      ctx.fireChannelRead(child);
    }
  }
}
