package dev.veil.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.spi.transport.Transport;
import java.net.SocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.function.UnaryOperator;

/**
 * A Vert.x transport that is another one ({@code delegate}) in everything, except that each
 * listening channel it makes first passes through {@code listening}, which adds a handler to it
 * ({@link HttpConnectionGate}). Transports are Vert.x's extension point for the channels it uses.
 */
final class GatedTransport implements io.vertx.core.transport.Transport, Transport {
  private final Transport delegate;
  private final UnaryOperator<ServerChannel> listening;

  GatedTransport(Transport delegate, UnaryOperator<ServerChannel> listening) {
    this.delegate = delegate;
    this.listening = listening;
  }

  @Override
  public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
    ChannelFactory<? extends ServerChannel> plain = delegate.serverChannelFactory(domainSocket);
    return () -> listening.apply(plain.newChannel());
  }

  // io.vertx.core.transport.Transport: what VertxBuilder.withTransport takes

  @Override
  public String name() {
    return "nio";
  }

  @Override
  public boolean available() {
    return delegate.isAvailable();
  }

  @Override
  public Transport implementation() {
    return this;
  }

  // The rest of the SPI, as the delegate does it

  @Override
  public boolean supportsDomainSockets() {
    return delegate.supportsDomainSockets();
  }

  @Override
  public boolean supportFileRegion() {
    return delegate.supportFileRegion();
  }

  @Override
  public boolean isAvailable() {
    return delegate.isAvailable();
  }

  @Override
  public Throwable unavailabilityCause() {
    return delegate.unavailabilityCause();
  }

  @Override
  public SocketAddress convert(io.vertx.core.net.SocketAddress address) {
    return delegate.convert(address);
  }

  @Override
  public io.vertx.core.net.SocketAddress convert(SocketAddress address) {
    return delegate.convert(address);
  }

  @Override
  public IoHandlerFactory ioHandlerFactory() {
    return delegate.ioHandlerFactory();
  }

  @Override
  public EventLoopGroup eventLoopGroup(
      int type, int threads, ThreadFactory threadFactory, int ioRatio) {
    return delegate.eventLoopGroup(type, threads, threadFactory, ioRatio);
  }

  @Override
  public DatagramChannel datagramChannel() {
    return delegate.datagramChannel();
  }

  @Override
  @SuppressWarnings("deprecation") // the SPI's own signature
  public DatagramChannel datagramChannel(InternetProtocolFamily family) {
    return delegate.datagramChannel(family);
  }

  @Override
  public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
    return delegate.channelFactory(domainSocket);
  }

  @Override
  public void configure(DatagramChannel channel, DatagramSocketOptions options) {
    delegate.configure(channel, options);
  }

  @Override
  public void configure(
      ClientOptionsBase options, int connectTimeout, boolean domainSocket, Bootstrap bootstrap) {
    delegate.configure(options, connectTimeout, domainSocket, bootstrap);
  }

  @Override
  public void configure(NetServerOptions options, boolean domainSocket, ServerBootstrap bootstrap) {
    delegate.configure(options, domainSocket, bootstrap);
  }
}
