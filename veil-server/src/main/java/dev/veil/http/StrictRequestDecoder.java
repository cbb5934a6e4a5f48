package dev.veil.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Vert.x's HTTP/1.x request decoder, refusing a protocol other than {@code HTTP/1.1} or {@code
 * HTTP/1.0}: Netty's accepts any {@code NAME/x.y}, and Vert.x then answers 501 with the client's
 * token as its own version. {@link #install} puts one in each new connection's pipeline.
 *
 * <p>An unknown version fails the request head as any malformed head does, so the listener's
 * invalid-request handler answers it (400, {@link ErrorResponses#invalidRequest}); such an answer
 * is an HTTP/1.1 one ({@link #createInvalidMessage}). The check is two reference comparisons per
 * request: Netty hands out its own constants for the two known versions.
 *
 * <p>One instance per connection, used on its event loop only; not thread-safe.
 */
public final class StrictRequestDecoder extends VertxHttpRequestDecoder {
  private static final String NAME = "httpDecoder";

  public StrictRequestDecoder(HttpServerOptions options) {
    super(options);
  }

  /**
   * Replaces the HTTP/1.x request decoder of {@code connection} by a strict one. Call from the
   * server's connection handler, before the connection's first bytes are read; a connection of
   * another kind is left as it is.
   */
  public static void install(HttpConnection connection, HttpServerOptions options) {
    if (connection instanceof ConnectionBase base) {
      ChannelHandler current = base.channel().pipeline().get(NAME);
      if (current instanceof VertxHttpRequestDecoder && !(current instanceof StrictRequestDecoder)) {
        base.channel().pipeline().replace(NAME, NAME, new StrictRequestDecoder(options));
      }
    }
  }

  @Override
  protected HttpMessage createMessage(String[] initialLine) {
    HttpMessage message = super.createMessage(initialLine);
    HttpVersion version = message.protocolVersion();
    if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
      throw new UnknownVersion();
    }
    return message;
  }

  /** The stand-in for a request whose head could not be read: answered over HTTP/1.1. */
  @Override
  protected HttpMessage createInvalidMessage() {
    return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/bad-request", Unpooled.buffer(0),
        headersFactory, trailersFactory);
  }

  /** A request line whose protocol is not HTTP/1.1 or HTTP/1.0. Carries no input; no stack trace. */
  static final class UnknownVersion extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnknownVersion() {
      super("HTTP version other than HTTP/1.1 or HTTP/1.0", null, false, false);
    }
  }
}
