package dev.veil.http;

import dev.veil.client.ApiClient;
import dev.veil.common.ApiProfile;
import dev.veil.observability.RequestMetrics;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * One request and its answer, as seen by an endpoint: the caller ({@link #client()}, set by the
 * dispatcher after authentication), the API profile, and the ways to answer. Every answer goes
 * through here, so every request is observed (metrics, access log) exactly once.
 *
 * <p>Used only on the request's event loop; not thread-safe.
 */
final class Exchange {
  static final String JSON_CONTENT_TYPE = "application/json; charset=utf-8";
  static final String SEALED_CONTENT_TYPE = "text/plain; charset=us-ascii";

  /** Recorded when the client went away before the answer could be sent (as nginx does). */
  static final int CLIENT_CLOSED = 499;

  private final HttpServerRequest request;
  private final TrackedConnection connection;
  private final StopSignal stop;
  private final String routeName;
  private final RequestMetrics metrics;
  private final RequestObserver observer;
  private ApiProfile profile;
  private final long startNanos;
  private ApiClient client;
  private boolean answered;
  private boolean closeAfterStream;
  private Sealer sealer;

  /** Turns a 200 answer's JSON into the encrypted body that is sent instead (the v2 API). */
  @FunctionalInterface
  interface Sealer {
    Buffer seal(Buffer json);

    /** The content type of a sealed answer. */
    default String contentType() {
      return SEALED_CONTENT_TYPE;
    }

    /**
     * The encoding that seals a streamed 200 answer as one answer, or null if this sealer cannot
     * seal in chunks.
     */
    default ChunkEncoding streamed() {
      return null;
    }
  }

  /**
   * From now on, a 200 answer is sealed by {@code sealer} and sent as text; other answers stay
   * plain JSON, spelled as UID2 spells them (the v2 API, docs/http-api.md).
   */
  void sealAnswers(Sealer sealer) {
    this.sealer = sealer;
    speakUid2();
  }

  /** From now on, error answers are spelled as UID2 spells them ({@code client_error}). */
  void speakUid2() {
    this.profile = ApiProfile.UID2;
  }

  Exchange(
      HttpServerRequest request,
      TrackedConnection connection,
      String routeName,
      RequestMetrics metrics,
      RequestObserver observer,
      ApiProfile profile,
      long startNanos,
      StopSignal stop) {
    this.request = request;
    this.connection = connection;
    this.stop = stop;
    this.routeName = routeName;
    this.metrics = metrics;
    this.observer = observer;
    this.profile = profile;
    this.startNanos = startNanos;
  }

  HttpServerRequest request() {
    return request;
  }

  HttpServerResponse response() {
    return request.response();
  }

  /** The connection the request arrived on, as its listener tracks it. */
  TrackedConnection connection() {
    return connection;
  }

  String routeName() {
    return routeName;
  }

  ApiProfile profile() {
    return profile;
  }

  /**
   * The authenticated caller, or null when the route needs none and none (or no valid key) was
   * sent.
   */
  ApiClient client() {
    return client;
  }

  void authenticated(ApiClient caller) {
    this.client = caller;
  }

  boolean answered() {
    return answered;
  }

  /** 200 {@code {"status":"success","body":…}}. */
  void success(Envelope.BodyWriter body) {
    sendJson(200, Envelope.success(body, 256));
  }

  /** 200 {@code {"status":"success","body":…}} with a hint of the body's size in bytes. */
  void success(Envelope.BodyWriter body, int sizeHint) {
    sendJson(200, Envelope.success(body, sizeHint));
  }

  /** 200 {@code {"status":"optout"}}. */
  void optout() {
    sendJson(200, Envelope.optout());
  }

  void sendJson(int status, Buffer body) {
    if (sealer != null && status == 200) {
      send(status, sealer.contentType(), sealer.seal(body));
    } else {
      send(status, JSON_CONTENT_TYPE, body);
    }
  }

  /** Ends the response; a second answer to the same request is ignored. */
  void send(int status, String contentType, Buffer body) {
    if (answered) {
      return;
    }
    answered = true;
    HttpServerResponse response = request.response();
    if (response.closed()) {
      observer.completed(this, CLIENT_CLOSED);
      return;
    }
    boolean close =
        request
                .headers()
                .contains(HttpHeaders.TRANSFER_ENCODING) // RFC 9112 6.3: see ConnectionClose
            || (!request.isEnded()
                && declaresBody()); // answered before the body was read: an auth failure, a refused
    // size
    if (close) {
      ConnectionClose.mark(request);
      response.putHeader(HttpHeaders.CONNECTION, "close");
    } else {
      closeIfStopping(response);
    }
    if (HttpMethod.HEAD.equals(request.method())) {
      // RFC 9110 9.3.2 and 8.6: a HEAD answer carries the GET answer's fields, its length included;
      // Vert.x drops the body of a HEAD answer and, unless told, the Content-Length with it.
      response.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.length()));
    }
    response
        .setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, contentType)
        .end(body)
        .onComplete(
            written -> {
              if (close) {
                ConnectionClose.afterAnswer(request);
              }
            });
    observer.completed(this, status);
  }

  private boolean declaresBody() {
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    return (length != null && !length.equals("0"))
        || request.headers().contains(HttpHeaders.TRANSFER_ENCODING);
  }

  /** Ends the response with no body (a CORS preflight answer). */
  void sendEmpty(int status) {
    if (answered) {
      return;
    }
    answered = true;
    closeIfStopping(request.response());
    request.response().setStatusCode(status).end();
    observer.completed(this, status);
  }

  /**
   * How the chunks of a streamed 200 answer go on the wire: as JSON, or sealed when the answers of
   * this exchange are ({@link #sealAnswers}).
   *
   * @throws IllegalStateException if the answers are sealed in a way that cannot stream
   */
  ChunkEncoding chunkEncoding() {
    if (sealer == null) {
      return ChunkEncoding.JSON;
    }
    ChunkEncoding sealed = sealer.streamed();
    if (sealed == null) {
      throw new IllegalStateException("this route's sealed answers cannot be streamed");
    }
    return sealed;
  }

  /**
   * Starts a chunked 200 response whose body the caller writes, the last chunk with {@link
   * #endStream}; finish with {@link #streamEnded}. After a chunked request the connection closes
   * once the answer is written, as after {@link #send}.
   */
  HttpServerResponse beginStream(String contentType) {
    answered = true;
    HttpServerResponse response = request.response();
    response.setStatusCode(200).setChunked(true).putHeader(HttpHeaders.CONTENT_TYPE, contentType);
    closeAfterStream = request.headers().contains(HttpHeaders.TRANSFER_ENCODING);
    if (closeAfterStream) {
      ConnectionClose.mark(request);
      response.putHeader(HttpHeaders.CONNECTION, "close");
    } else {
      closeIfStopping(response);
    }
    return response;
  }

  /** Writes the last chunk of a streamed answer and ends it. */
  Future<Void> endStream(Buffer last) {
    Future<Void> ended = request.response().end(last);
    if (closeAfterStream) {
      ended.onComplete(written -> ConnectionClose.afterAnswer(request));
    }
    return ended;
  }

  /** Once the listener is stopping, every answer ends its connection ({@link StopSignal}). */
  private void closeIfStopping(HttpServerResponse response) {
    if (stop.stopping()) {
      response.putHeader(HttpHeaders.CONNECTION, "close");
    }
  }

  /** Records a streamed response once it ended (or the connection closed during it). */
  void streamEnded(boolean complete) {
    if (!complete && closeAfterStream) {
      ConnectionClose.now(request); // cut short: endStream will not close it
    }
    observer.completed(this, complete ? 200 : CLIENT_CLOSED);
  }

  /** Answers {@code failure} through {@link ErrorResponses}. */
  void fail(Throwable failure) {
    if (answered) {
      // Too late for an error body (a stream had begun): cut the connection so the client sees
      // a truncated response rather than a complete-looking one.
      request.connection().close();
      return;
    }
    ErrorResponses.send(this, failure);
  }

  long elapsedNanos() {
    return System.nanoTime() - startNanos;
  }

  /** {@link System#nanoTime()} when the request's head arrived. */
  long startNanos() {
    return startNanos;
  }

  RequestMetrics metrics() {
    return metrics;
  }
}
