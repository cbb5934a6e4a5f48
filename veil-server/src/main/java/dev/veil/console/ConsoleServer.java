package dev.veil.console;

import dev.veil.config.VeilConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console's listener ({@code console.host}:{@code console.port}, loopback by default): a
 * Vert.x HTTP server of its own beside the public API, on the node's Vert.x (so its connections
 * count against the node's connection limit). It reads each request on the event loop (a POST's
 * form body up to {@value #MAX_BODY_BYTES} bytes), serves the style sheet and script from the jar,
 * and hands everything else to the {@link ConsoleDispatcher} on a worker thread, since pages call
 * services that block on the store.
 *
 * <p>Every answer carries a strict Content Security Policy ({@value #CSP}: the pages are
 * server-rendered HTML with forms, one style sheet and one script of the console's own, no inline
 * script or style), forbids framing and sniffing, and pages are never cached. Referrers go to the
 * console itself only ({@code same-origin}): under {@code no-referrer} browsers send {@code Origin:
 * null} with a form, which the origin check must refuse. Start and stop once each; thread-safe.
 */
public final class ConsoleServer {
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleServer.class);

  /** The Content Security Policy of every answer. */
  public static final String CSP =
      "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self';"
          + " form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

  static final int MAX_BODY_BYTES = 64 * 1024;
  private static final long RATE_SAMPLE_MILLIS = 10_000;
  private static final Map<String, Asset> ASSETS =
      Map.of(
          "/static/console.css", Asset.load("console.css", "text/css; charset=utf-8"),
          "/static/console.js", Asset.load("console.js", "text/javascript; charset=utf-8"));

  /** A file of the console's, read from the jar once. */
  private record Asset(Buffer bytes, String contentType) {
    static Asset load(String name, String contentType) {
      try (InputStream in = ConsoleServer.class.getResourceAsStream("/console/" + name)) {
        if (in == null) {
          throw new IllegalStateException("the console's " + name + " is missing from the jar");
        }
        return new Asset(Buffer.buffer(in.readAllBytes()), contentType);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private final Vertx vertx;
  private final VeilConfig.Console settings;
  private final HttpServer server;
  private final WorkerExecutor workers;
  private final ConsoleDispatcher dispatcher;
  private final RequestRates rates;
  private long sampler = -1;

  /**
   * @param maxHeaderBytes {@code limits.max-header-bytes}: larger request heads are refused
   */
  public ConsoleServer(
      Vertx vertx, VeilConfig.Console settings, int maxHeaderBytes, ConsoleApi api) {
    this.vertx = vertx;
    this.settings = settings;
    Sessions sessions =
        new Sessions(api.clock(), new SecureRandom(), settings.idleTimeout(), settings.lifetime());
    SignIn signIn = new SignIn(api, sessions, new SignInThrottle(api.clock()));
    this.rates = new RequestRates(api.metrics(), System::nanoTime);
    this.dispatcher =
        new ConsoleDispatcher(
            api, sessions, signIn, ConsoleRoutes.of(api, sessions, signIn, rates));
    // Rotations by hand run for seconds: no blocked-thread warnings for them.
    this.workers = vertx.createSharedWorkerExecutor("veil-console", 2, 10, TimeUnit.MINUTES);
    this.server =
        vertx
            .createHttpServer(
                new HttpServerOptions()
                    .setMaxHeaderSize(maxHeaderBytes)
                    .setMaxInitialLineLength(maxHeaderBytes)
                    .setIdleTimeout((int) Duration.ofMinutes(2).toSeconds())
                    .setIdleTimeoutUnit(TimeUnit.SECONDS)
                    .setHttp2ClearTextEnabled(false)
                    .setCompressionSupported(false)
                    .setDecompressionSupported(false))
            .requestHandler(this::handle);
  }

  /** Binds and listens; completes with the actual port. */
  public Future<Integer> start() {
    return server
        .listen(settings.port(), settings.host())
        .map(
            s -> {
              sampler = vertx.setPeriodic(RATE_SAMPLE_MILLIS, id -> rates.sample());
              LOG.info("event=console_listening host={} port={}", settings.host(), s.actualPort());
              return s.actualPort();
            });
  }

  /** Stops accepting, lets requests in flight finish (up to 5 s), and releases the workers. */
  public Future<Void> stop() {
    if (sampler >= 0) {
      vertx.cancelTimer(sampler);
    }
    return server.shutdown(5, TimeUnit.SECONDS).eventually(workers::close);
  }

  private void handle(HttpServerRequest request) {
    long arrived = System.nanoTime();
    HttpServerResponse response = request.response();
    response
        .putHeader("Content-Security-Policy", CSP)
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("X-Frame-Options", "DENY")
        .putHeader("Referrer-Policy", "same-origin")
        .putHeader("Cross-Origin-Opener-Policy", "same-origin")
        .putHeader("Cross-Origin-Resource-Policy", "same-origin");
    Asset asset = ASSETS.get(request.path());
    if (asset != null && HttpMethod.GET.equals(request.method())) {
      response
          .putHeader(HttpHeaders.CONTENT_TYPE, asset.contentType())
          .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
          .end(asset.bytes().copy());
      return;
    }
    if (!HttpMethod.POST.equals(request.method())) {
      dispatch(request, "", arrived);
      return;
    }
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (declaredTooLarge(length)) {
      tooLarge(response);
      return;
    }
    Buffer body = Buffer.buffer();
    boolean[] refused = {false};
    request.handler(
        chunk -> {
          if (!refused[0] && body.length() + chunk.length() > MAX_BODY_BYTES) {
            refused[0] = true;
            tooLarge(response);
          } else if (!refused[0]) {
            body.appendBuffer(chunk);
          }
        });
    request.endHandler(
        v -> {
          if (!refused[0]) {
            dispatch(request, body.toString(StandardCharsets.UTF_8), arrived);
          }
        });
  }

  private void dispatch(HttpServerRequest request, String body, long arrived) {
    Incoming in =
        new Incoming(
            request.method().name(),
            request.path(),
            request.query(),
            body,
            request.getHeader(HttpHeaders.COOKIE),
            request.getHeader(HttpHeaders.HOST),
            request.getHeader(HttpHeaders.ORIGIN),
            request.getHeader("Sec-Fetch-Site"),
            arrived,
            request.remoteAddress() == null ? "" : request.remoteAddress().hostAddress());
    workers
        .executeBlocking(() -> dispatcher.answer(in), false)
        .onComplete(
            done -> {
              if (done.succeeded()) {
                send(request.response(), done.result());
              } else {
                LOG.error(
                    "event=console_request_failed error={}", done.cause().getClass().getName());
                send(request.response(), ConsoleResponse.page(500, "Internal error"));
              }
            });
  }

  private static void send(HttpServerResponse response, ConsoleResponse answer) {
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(answer.status()).putHeader(HttpHeaders.CACHE_CONTROL, "no-store");
    answer.cookies().forEach(c -> response.headers().add(HttpHeaders.SET_COOKIE, c));
    if (answer.location() != null) {
      response.putHeader(HttpHeaders.LOCATION, answer.location()).end();
      return;
    }
    response.putHeader(HttpHeaders.CONTENT_TYPE, "text/html; charset=utf-8").end(answer.html());
  }

  private static boolean declaredTooLarge(String length) {
    if (length == null) {
      return false;
    }
    try {
      return Long.parseLong(length.strip()) > MAX_BODY_BYTES;
    } catch (NumberFormatException e) {
      return true;
    }
  }

  private static void tooLarge(HttpServerResponse response) {
    response
        .setStatusCode(413)
        .putHeader(HttpHeaders.CONNECTION, "close")
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .end("The form is too large.");
  }
}
