package dev.veil.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import java.util.Set;

/**
 * Cross-origin access to {@code /v1/token/refresh} (docs/spec.md 1.1) and {@code
 * /v2/token/refresh}, which the browser SDKs call from publishers' pages. Origins come from {@code
 * cors.allowed-origins} ({@code *} by default: any origin); methods GET, POST, OPTIONS; request
 * headers {@code Content-Type} and {@code X-UID2-Client-Version}. A request from an origin not on
 * the list gets no CORS headers, so the browser withholds the answer.
 *
 * <p>Refusals that a browser SDK may run into through a wrong setting also carry the headers, so
 * the page reads a 404 or 400 instead of an opaque network error and the SDK can say what is wrong:
 * an unknown path (a wrong base URL, e.g. {@code /api/v1/token/refresh}), and a request refused
 * before any route was chosen (malformed framing; a head the HTTP decoder rejected, 431, 414 or
 * 400). Their bodies say only what was wrong with the request. Those are all misses: requests that
 * reach a route other than refresh (generate, map) pay nothing for this. Immutable.
 */
final class Cors {
  static final String ALLOWED_METHODS = "GET, POST, OPTIONS";
  static final String ALLOWED_HEADERS = "Content-Type, X-UID2-Client-Version";
  private static final String MAX_AGE_SECONDS = "86400";

  private final boolean anyOrigin;
  private final Set<String> origins;

  Cors(List<String> allowedOrigins) {
    this.anyOrigin = allowedOrigins.contains("*");
    this.origins = Set.copyOf(allowedOrigins);
  }

  /** Adds the CORS answer headers when the request comes from an allowed origin. */
  void apply(HttpServerRequest request) {
    HttpServerResponse response = request.response();
    if (!anyOrigin) {
      // The answer depends on Origin whatever it is (or its absence), so a cache must key on it:
      // otherwise an answer without CORS headers, stored for one origin, would be replayed to an
      // allowed one (Fetch standard, "CORS protocol and HTTP caches").
      response.putHeader(HttpHeaders.VARY, "Origin");
    }
    String origin = request.getHeader(HttpHeaders.ORIGIN);
    if (origin == null) {
      return;
    }
    if (anyOrigin) {
      response.putHeader(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    } else if (origins.contains(origin)) {
      response.putHeader(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
  }

  /**
   * Adds the CORS answer headers to a refusal of a request whose head the HTTP decoder rejected:
   * its {@code Origin} may not have been read, so with any origin allowed the answer says {@code *}
   * whatever the request said; with a list, only a read and allowed {@code Origin} is echoed.
   */
  void applyToRejectedHead(HttpServerRequest request) {
    apply(request);
    if (anyOrigin) {
      request.response().headers().set(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    }
  }

  /**
   * Answers an {@code OPTIONS} request (after {@link #apply}): 204, no body, {@code Allow} (RFC
   * 9110 section 9.3.7), and the preflight headers for an allowed origin; {@code methods} are the
   * route's ({@value #ALLOWED_METHODS} for v1 refresh, {@code POST, OPTIONS} for v2 refresh).
   */
  void preflight(Exchange ex, String methods) {
    HttpServerResponse response = ex.response();
    response.putHeader(HttpHeaders.ALLOW, methods);
    if (response.headers().contains(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN)) {
      response
          .putHeader(HttpHeaders.ACCESS_CONTROL_ALLOW_METHODS, methods)
          .putHeader(HttpHeaders.ACCESS_CONTROL_ALLOW_HEADERS, ALLOWED_HEADERS)
          .putHeader(HttpHeaders.ACCESS_CONTROL_MAX_AGE, MAX_AGE_SECONDS);
    }
    ex.sendEmpty(204);
  }
}
