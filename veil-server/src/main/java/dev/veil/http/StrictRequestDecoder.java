package dev.veil.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.List;

/**
 * Vert.x's HTTP/1.x request decoder, refusing what Netty's lets through: a protocol other than
 * {@code HTTP/1.1} or {@code HTTP/1.0} (Netty accepts any {@code NAME/x.y}, and Vert.x then answers
 * 501 with the client's token as its own version), and a chunk size too large to read (Netty reads
 * it modulo 2^32). {@link #install} puts one in each new connection's pipeline.
 *
 * <p>Design note. An unknown version fails the request head as any malformed head does, so the
 * listener's invalid-request handler answers it (400, {@link ErrorResponses#invalidRequest}); such
 * an answer is an HTTP/1.1 one ({@link #createInvalidMessage}). The check is two reference
 * comparisons per request: Netty hands out its own constants for the two known versions.
 *
 * <p>A chunked body is followed through its framing. Before the decoder reads a chunk-size line,
 * the line is read here, and the decoder is then shown only the bytes up to the next one, so it
 * never reads a size line that was not checked. A size above {@link Integer#MAX_VALUE} (leading
 * zeros do not count), or any framing error the decoder itself finds in a chunked body, fails the
 * body: the request's {@link DecoderResult} becomes the failure, the body ends there, and
 * everything after it on the connection is dropped. The body's reader sees the failure at the end
 * of the body ({@link BodyReader}) and answers 400; Vert.x closes a connection whose request failed
 * once the answer is written. (Handed on as a failed chunk, the failure would make Vert.x close the
 * connection at once, before any answer.) A request with a body of another kind costs one look-up
 * of {@code Transfer-Encoding}; one without a body, an {@code instanceof}.
 *
 * <p>One instance per connection, used on its event loop only; not thread-safe.
 */
public final class StrictRequestDecoder extends VertxHttpRequestDecoder {
  private static final String NAME = "httpDecoder";
  private static final int AFTER_LAST_CHUNK = -1;

  private final int maxLineBytes;

  /** The request whose chunked body is being decoded, or null. */
  private HttpRequest chunked;

  /**
   * Bytes before the next chunk-size line of {@link #chunked}'s body, or {@link #AFTER_LAST_CHUNK}.
   */
  private long beforeSizeLine;

  /** The body failed: nothing more is decoded on this connection. */
  private boolean dropping;

  public StrictRequestDecoder(HttpServerOptions options) {
    super(options);
    this.maxLineBytes = options.getMaxInitialLineLength();
  }

  /**
   * Replaces the HTTP/1.x request decoder of {@code connection} by a strict one. Call from the
   * server's connection handler, before the connection's first bytes are read; a connection of
   * another kind is left as it is.
   */
  public static void install(HttpConnection connection, HttpServerOptions options) {
    if (connection instanceof ConnectionBase base) {
      ChannelHandler current = base.channel().pipeline().get(NAME);
      if (current instanceof VertxHttpRequestDecoder
          && !(current instanceof StrictRequestDecoder)) {
        base.channel().pipeline().replace(NAME, NAME, new StrictRequestDecoder(options));
      }
    }
  }

  @Override
  // By identity on purpose: Netty returns its constants only for the exact texts "HTTP/1.1" and
  // "HTTP/1.0"; "http/1.1" parses to an equal but distinct version, and the version is
  // case-sensitive (RFC 9112 section 2.3).
  @SuppressWarnings("ReferenceEquality")
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
    return new DefaultFullHttpRequest(
        HttpVersion.HTTP_1_1,
        HttpMethod.GET,
        "/bad-request",
        Unpooled.buffer(0),
        headersFactory,
        trailersFactory);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
    if (dropping) {
      in.skipBytes(in.readableBytes());
      return;
    }
    int emitted = out.size();
    if (chunked == null) {
      super.decode(ctx, in, out);
      followIfChunked(out, emitted);
      return;
    }
    if (beforeSizeLine == 0 && !readSizeLine(in)) {
      failBody(new ChunkSizeTooLarge(), in, out);
      return;
    }
    if (beforeSizeLine <= 0) {
      super.decode(ctx, in, out);
    } else {
      ByteBuf upToNextSizeLine =
          in.slice(in.readerIndex(), (int) Math.min(in.readableBytes(), beforeSizeLine));
      super.decode(ctx, upToNextSizeLine, out);
      in.skipBytes(upToNextSizeLine.readerIndex());
      beforeSizeLine -= upToNextSizeLine.readerIndex();
    }
    afterBodyPart(in, out, emitted);
  }

  /** A request with a chunked body was just decoded: its body starts with a chunk-size line. */
  private void followIfChunked(List<Object> out, int emitted) {
    if (out.size() > emitted
        && out.get(out.size() - 1) instanceof HttpRequest request
        && request.decoderResult().isSuccess()
        && HttpUtil.isTransferEncodingChunked(request)) {
      chunked = request;
      beforeSizeLine = 0;
    }
  }

  /**
   * Reads the chunk-size line at the start of {@code in}, if it is all there, and counts the bytes
   * up to the next one. False if the size is too large; true otherwise, even if the line is not
   * complete yet or not valid (the decoder then waits for more, or fails it).
   */
  private boolean readSizeLine(ByteBuf in) {
    int start = in.readerIndex();
    int lineFeed =
        in.indexOf(start, start + Math.min(in.readableBytes(), maxLineBytes + 2), (byte) '\n');
    if (lineFeed < 0) {
      return true;
    }
    long size = chunkSize(in, start, lineFeed);
    if (size > Integer.MAX_VALUE) {
      return false;
    }
    beforeSizeLine = size == 0 ? AFTER_LAST_CHUNK : (lineFeed + 1 - start) + size + 2;
    return true;
  }

  /**
   * The hex number at the start of a chunk-size line, after leading whitespace, as Netty's decoder
   * reads it (up to the first other byte: an extension, the CR, or garbage the decoder refuses);
   * any value above {@link Integer#MAX_VALUE} is returned as soon as it is reached.
   */
  static long chunkSize(ByteBuf in, int from, int to) {
    int i = from;
    while (i < to && Character.isWhitespace(in.getByte(i))) {
      i++;
    }
    long size = 0;
    for (; i < to && size <= Integer.MAX_VALUE; i++) {
      int digit = Character.digit(in.getByte(i), 16);
      if (digit < 0) {
        break;
      }
      size = size * 16 + digit;
    }
    return size;
  }

  /**
   * Ends the follow at the body's last part; turns a part the decoder failed into a failed body.
   */
  private void afterBodyPart(ByteBuf in, List<Object> out, int emitted) {
    for (int i = emitted; i < out.size(); i++) {
      Object part = out.get(i);
      if (part instanceof HttpContent content && !content.decoderResult().isSuccess()) {
        Throwable cause = content.decoderResult().cause();
        out.remove(i);
        ReferenceCountUtil.release(content);
        failBody(cause, in, out);
        return;
      }
      if (part instanceof LastHttpContent) {
        chunked = null;
      }
    }
  }

  /**
   * Fails the body being read: the request carries the failure, its body ends here (so its reader
   * answers), and nothing more is decoded on this connection.
   */
  private void failBody(Throwable cause, ByteBuf in, List<Object> out) {
    if (chunked != null) {
      chunked.setDecoderResult(DecoderResult.failure(cause));
      chunked = null;
    }
    dropping = true;
    in.skipBytes(in.readableBytes());
    out.add(LastHttpContent.EMPTY_LAST_CONTENT);
  }

  /**
   * A request line whose protocol is not HTTP/1.1 or HTTP/1.0. Carries no input; no stack trace.
   */
  static final class UnknownVersion extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnknownVersion() {
      super("HTTP version other than HTTP/1.1 or HTTP/1.0", null, false, false);
    }
  }

  /** A chunk size above {@link Integer#MAX_VALUE}. Carries no input; no stack trace. */
  static final class ChunkSizeTooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ChunkSizeTooLarge() {
      super("chunk size too large", null, false, false);
    }
  }
}
