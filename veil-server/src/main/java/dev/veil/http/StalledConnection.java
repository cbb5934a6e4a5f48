package dev.veil.http;

import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Closes a connection whose client stopped reading, at once and with whatever is still unsent.
 *
 * <p>Vert.x's {@link HttpConnection#close()} first writes and flushes an empty message behind
 * everything queued, and closes the socket once that write completes: on a connection whose client
 * reads nothing it never does, so the connection, and the chunk it holds, would stay until the
 * client leaves. Vert.x's own idle timeout closes from its handler's place in the Netty pipeline,
 * below that queue; this does the same, which fails the pending writes and runs the connection's
 * close handlers. Call on the connection's event loop.
 */
final class StalledConnection {
  private StalledConnection() {}

  @SuppressWarnings("FutureReturnValueIgnored") // a close that fails leaves nothing to do
  static void close(HttpConnection connection) {
    if (connection instanceof ConnectionBase base) {
      base.channelHandlerContext().close();
    } else {
      connection.close(); // not a Vert.x 5 HTTP/1 connection: the best that is left
    }
  }
}
