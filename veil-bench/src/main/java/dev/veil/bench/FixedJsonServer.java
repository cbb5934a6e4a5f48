package dev.veil.bench;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerOptions;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTP ceiling of the machine: a Vert.x 5 server, set up like Veil's public listener (one
 * listener per event loop, all sharing the port, TCP_NODELAY, no compression), that answers every
 * request with the same JSON body and does no other work. A generate response of the same size
 * measured with the same load in the same run tells how much of the machine the server's own work
 * takes.
 *
 * <p>Usage: {@code FixedJsonServer <port> <body-bytes>}; binds 127.0.0.1 (port 0 picks one) and
 * prints {@code port=<port>} once it accepts connections. Runs until killed.
 */
public final class FixedJsonServer {
  private FixedJsonServer() {}

  public static void main(String[] args) {
    int port = Integer.parseInt(args[0]);
    int bodyBytes = Integer.parseInt(args[1]);
    byte[] body = body(bodyBytes);
    int loops = Runtime.getRuntime().availableProcessors();
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost("127.0.0.1")
            .setPort(port == 0 ? -1 : port)
            .setTcpNoDelay(true)
            .setCompressionSupported(false);
    AtomicInteger bound = new AtomicInteger();
    vertx
        .deployVerticle(
            () -> new Listener(options, body, bound), new DeploymentOptions().setInstances(loops))
        .onSuccess(id -> System.out.println("port=" + bound.get()))
        .onFailure(
            e -> {
              System.err.println("cannot listen: " + e.getMessage());
              System.exit(1);
            });
  }

  /**
   * {@code {"status":"success","body":{"advertising_token":"AAAA…"}}} padded to exactly {@code
   * bytes} bytes (at least the bytes of the frame itself).
   */
  static byte[] body(int bytes) {
    String head = "{\"status\":\"success\",\"body\":{\"advertising_token\":\"";
    String tail = "\"}}";
    int filler = Math.max(0, bytes - head.length() - tail.length());
    return (head + "A".repeat(filler) + tail).getBytes(StandardCharsets.US_ASCII);
  }

  private static final class Listener extends VerticleBase {
    private final HttpServerOptions options;
    private final Buffer body;
    private final AtomicInteger bound;

    Listener(HttpServerOptions options, byte[] body, AtomicInteger bound) {
      this.options = options;
      this.body = Buffer.buffer(body);
      this.bound = bound;
    }

    @Override
    public Future<?> start() {
      String length = Integer.toString(body.length());
      return vertx
          .createHttpServer(new HttpServerOptions(options))
          .requestHandler(
              req ->
                  req.response()
                      .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                      .putHeader(HttpHeaders.CONTENT_LENGTH, length)
                      .end(body))
          .listen()
          .onSuccess(s -> bound.set(s.actualPort()));
    }
  }
}
