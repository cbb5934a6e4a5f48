package dev.veil.http;

import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.Role;
import dev.veil.common.ApiProfile;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.config.VeilConfig;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.observability.Metrics;
import dev.veil.observability.RequestMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where every request enters: finds the {@link Route}, applies CORS, checks the API key and role,
 * applies the rate limit, reads the parameters (query or JSON body) and calls the endpoint. The
 * route table in {@link #routes} lists every path with its access rule and the class that answers
 * it. Thread-safe: one instance serves every event loop.
 */
final class RequestDispatcher {
  private final Map<String, Route> routes = new HashMap<>();
  private final ApiKeyAuthenticator authenticator;
  private final RateLimiter rateLimiter;
  private final Cors cors;
  private final JsonBodies bodies;
  private final int maxBodyBytes;
  private final ApiProfile profile;
  private final RequestObserver observer;
  private final RequestMetrics unmatched;
  private final RequestMetrics invalid;
  private final StopSignal stop = new StopSignal();

  /** From now on, answers carry {@code Connection: close} ({@link StopSignal}). */
  void beginStop() {
    stop.begin();
  }

  RequestDispatcher(Vertx vertx, VeilConfig config, PublicApi api, Metrics metrics) {
    this.authenticator = api.authenticator();
    this.rateLimiter = new RateLimiter(config.limits().rateLimitPerSecond(), api.clock());
    this.cors = new Cors(config.corsOrigins());
    this.maxBodyBytes = config.limits().maxBodyBytes();
    this.bodies = new JsonBodies(maxBodyBytes);
    this.profile = config.profile();
    this.observer = new RequestObserver(config.accessLog());
    this.unmatched = metrics.httpRequests("unmatched", "other");
    this.invalid = metrics.httpRequests("invalid", "other");
    for (Route.Builder route : routes(vertx, config, api, metrics)) {
      Route built = route.build(metrics);
      routes.put(built.path(), built);
    }
  }

  /** The API: every path, who may call it, and which class answers (docs/spec.md section 1). */
  private List<Route.Builder> routes(
      Vertx vertx, VeilConfig config, PublicApi api, Metrics metrics) {
    OutcomeCounters outcomes = new OutcomeCounters(metrics);
    TokenEndpoints tokens = new TokenEndpoints(api.tokens(), outcomes);
    IdentityMapEndpoints map =
        new IdentityMapEndpoints(
            api.mapping(),
            bodies,
            config.limits().maxBatchSize(),
            !profile.mapsOptedOutIdentities(),
            outcomes,
            api.clock());
    BucketsEndpoint buckets = new BucketsEndpoint(api.salts(), StreamBudget.of(config, metrics));
    OptOutEndpoint optOut =
        new OptOutEndpoint(vertx, api.mapper(), api.optOuts(), config.dbTimeout());
    OptOutStatusEndpoint optOutStatus =
        new OptOutStatusEndpoint(vertx, api.mapper(), api.optOuts(), bodies, config.dbTimeout());
    KeyLatestEndpoint keys = new KeyLatestEndpoint(api.keys(), api.sites(), api.clock());
    KeySharingEndpoints sharing =
        new KeySharingEndpoints(api.keys(), api.sites(), api.sharing(), api.clock());
    OpsEndpoints ops = new OpsEndpoints(vertx, api.readiness(), metrics);
    SdkScriptEndpoint sdk = new SdkScriptEndpoint(SdkScript.load());
    V2Requests v2 = new V2Requests(api.clock(), V2Envelope.UID2_ALLOWED_SKEW);
    Route.Builder validate = Route.at("/v1/token/validate");
    return List.of(
        Route.at("/v1/token/generate")
            .role(Role.GENERATOR)
            .get(query(tokens::generate))
            .post(json(tokens::generate)),
        Route.at("/v1/token/refresh")
            .optionalKey()
            .cors()
            .get(query(tokens::refreshFromQuery))
            .post(json(tokens::refresh)),
        (profile.validateNeedsKey() ? validate.anyKey() : validate.open())
            .get(query(tokens::validate))
            .post(json(tokens::validate)),
        Route.at("/v1/identity/map")
            .role(Role.MAPPER)
            .get(query(map::mapOne))
            .post(ex -> BodyReader.read(ex, maxBodyBytes, body -> map.mapBatch(ex, body))),
        Route.at("/v2/identity/map")
            .role(Role.MAPPER)
            .post(
                ex ->
                    BodyReader.read(ex, maxBodyBytes, body -> v2.handle(ex, body, map::mapBatch))),
        Route.at("/v3/identity/map")
            .role(Role.MAPPER)
            .post(
                ex ->
                    BodyReader.read(
                        ex, maxBodyBytes, body -> v2.handle(ex, body, true, map::mapV3))),
        Route.at("/v2/token/generate").role(Role.GENERATOR).post(v2Json(v2, tokens::generateV2)),
        Route.at("/v2/token/refresh")
            .optionalKey()
            .cors()
            .post(ex -> BodyReader.read(ex, maxBodyBytes, body -> tokens.refreshV2(ex, body))),
        Route.at("/v2/token/validate").role(Role.GENERATOR).post(v2Json(v2, tokens::validate)),
        Route.at("/v2/token/logout").role(Role.OPTOUT).post(v2Json(v2, optOut::logout)),
        Route.at("/v2/key/sharing")
            .roles(Role.ID_READER, Role.SHARER)
            .post(
                ex ->
                    BodyReader.read(
                        ex, maxBodyBytes, body -> v2.handle(ex, body, sharing::sharing))),
        Route.at("/v2/key/bidstream")
            .role(Role.ID_READER)
            .post(
                ex ->
                    BodyReader.read(
                        ex, maxBodyBytes, body -> v2.handle(ex, body, sharing::bidstream))),
        Route.at("/v1/identity/buckets").role(Role.MAPPER).get(query(buckets::handle)),
        Route.at("/v2/identity/buckets").role(Role.MAPPER).post(v2Json(v2, buckets::handle)),
        Route.at("/v1/optout").role(Role.OPTOUT).post(json(optOut::handle)),
        Route.at("/v2/optout/status")
            .roles(Role.MAPPER, Role.SHARER, Role.ID_READER)
            .post(
                ex ->
                    BodyReader.read(
                        ex, maxBodyBytes, body -> v2.handle(ex, body, optOutStatus::handle))),
        Route.at("/v1/key/latest").role(Role.ID_READER).get(keys::handle),
        Route.at("/ops/healthz").open().get(ops::healthz),
        Route.at("/ops/readyz").open().get(ops::readyz),
        Route.at("/metrics").open().get(ops::metrics),
        Route.at("/openapi.yaml").open().get(ops::openApi),
        Route.at(SdkScriptEndpoint.PATH).open().get(sdk::latest),
        Route.at(sdk.versionedPath()).open().get(sdk::versioned));
  }

  /**
   * Answers {@code request}, which arrived on {@code connection} (null if the connection was
   * refused at the connection limit: then it is closing and the request is not served).
   */
  void handle(HttpServerRequest request, TrackedConnection connection) {
    long start = System.nanoTime();
    if (connection == null || !connection.headArrived(start)) {
      return; // the connection was refused or shed: it is closing
    }
    if (ConnectionClose.isClosing(request.connection())) {
      return; // pipelined behind a request after which the connection closes: not served
    }
    if (request.headers().get(HttpHeaders.HOST) == null
        && request.version() == HttpVersion.HTTP_1_1) {
      // RFC 9112 section 3.2. One look-up without allocation (HostHeaderBenchmark: about 10 ns of a
      // generate's 16 us); a second Host is not looked for (see docs/http-api.md).
      cors.apply(request);
      invalid.record(
          ErrorResponses.malformed(request, profile, 400, "Malformed HTTP request: no Host header"),
          System.nanoTime() - start);
      return;
    }
    String framing = ambiguousFraming(request);
    if (framing != null) {
      cors.apply(request);
      invalid.record(
          ErrorResponses.malformed(request, profile, 400, framing), System.nanoTime() - start);
      return;
    }
    String path = request.path() == null ? "" : request.path();
    Route route = routes.get(path);
    if (route == null) {
      route = routes.get(RequestPath.normalize(path));
    }
    if (route == null) {
      cors.apply(request); // a browser SDK with a wrong base URL reads the 404 (see Cors)
      ErrorResponses.unknownPath(
          new Exchange(
              request, connection, "unmatched", unmatched, observer, profile, start, stop));
      return;
    }
    HttpMethod method = request.method();
    Exchange ex =
        new Exchange(
            request,
            connection,
            route.path(),
            route.metrics(method),
            observer,
            route.speaksUid2() ? ApiProfile.UID2 : profile,
            start,
            stop);
    try {
      if (route.cors()) {
        cors.apply(request);
        if (HttpMethod.OPTIONS.equals(method)) {
          cors.preflight(ex, route.allow());
          return;
        }
      }
      Endpoint endpoint = route.endpoint(method);
      if (endpoint == null) {
        ErrorResponses.methodNotAllowed(ex, route.allow());
        return;
      }
      authorize(ex, route);
      endpoint.handle(ex);
    } catch (Exception e) {
      ex.fail(e);
    }
  }

  /**
   * Why the body's end cannot be known for sure, or null: both {@code Content-Length} and {@code
   * Transfer-Encoding}, or a transfer coding other than {@code chunked} alone. A proxy in front may
   * read such a request's length differently, and what this server took for the next request would
   * be part of the body to the proxy (request smuggling), so RFC 9112 section 6 has the server
   * refuse it and close the connection.
   */
  /** "API key lacks the MAPPER role", or with two roles, "… the ID_READER or SHARER role". */
  private static String lacksRole(Set<Role> roles) {
    return "API key lacks the "
        + EnumSet.copyOf(roles).stream().map(Role::name).collect(Collectors.joining(" or "))
        + " role";
  }

  private static String ambiguousFraming(HttpServerRequest request) {
    List<String> codings = request.headers().getAll(HttpHeaders.TRANSFER_ENCODING);
    if (codings.isEmpty()) {
      return null;
    }
    if (request.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
      return "Malformed HTTP request: both Content-Length and Transfer-Encoding";
    }
    if (codings.size() > 1 || !codings.get(0).trim().equalsIgnoreCase("chunked")) {
      return "Malformed HTTP request: Transfer-Encoding must be chunked alone";
    }
    return null;
  }

  /** Answers a request the HTTP decoder rejected (431, 414 or 400); the connection then closes. */
  void handleInvalid(HttpServerRequest request, TrackedConnection connection) {
    long start = System.nanoTime();
    if (connection == null
        || !connection.headArrived(start)
        || ConnectionClose.isClosing(request.connection())) {
      return;
    }
    cors.applyToRejectedHead(request);
    int status = ErrorResponses.invalidRequest(request, profile);
    invalid.record(status, System.nanoTime() - start);
  }

  private void authorize(Exchange ex, Route route) {
    String header = ex.request().getHeader(HttpHeaders.AUTHORIZATION);
    switch (route.access()) {
      case OPEN -> {
        return;
      }
      case OPTIONAL_KEY -> {
        if (header != null) {
          authenticator.authenticate(header).ifPresent(ex::authenticated);
        }
      }
      case ANY_KEY, ROLE -> {
        Optional<ApiClient> client = authenticator.authenticate(header);
        if (client.isEmpty()) {
          throw new VeilException(
              ErrorCode.UNAUTHORIZED,
              header == null
                  ? "Missing API key: send the header Authorization: Bearer <api-key>"
                  : "Invalid API key");
        }
        if (!route.roles().isEmpty() && route.roles().stream().noneMatch(client.get()::has)) {
          throw new VeilException(ErrorCode.UNAUTHORIZED, lacksRole(route.roles()));
        }
        ex.authenticated(client.get());
      }
      default -> throw new IllegalStateException("unhandled access rule " + route.access());
    }
    ApiClient client = ex.client();
    if (client != null && !rateLimiter.tryAcquire(client.id())) {
      throw new VeilException(ErrorCode.RATE_LIMITED, "Rate limit exceeded, try again in a second");
    }
  }

  /** GET form: parameters from the query string. */
  private static Endpoint query(Endpoint.WithParams endpoint) {
    return ex -> endpoint.handle(ex, QueryString.parse(ex.request().query()));
  }

  /** POST form: parameters from a JSON object body. */
  private Endpoint json(Endpoint.WithParams endpoint) {
    return ex ->
        BodyReader.read(ex, maxBodyBytes, body -> endpoint.handle(ex, bodies.params(body)));
  }

  /** A v1 JSON endpoint inside UID2's v2 envelope ({@link V2Requests}). */
  private Endpoint v2Json(V2Requests v2, Endpoint.WithParams endpoint) {
    return ex ->
        BodyReader.read(
            ex,
            maxBodyBytes,
            body -> v2.handle(ex, body, (e, json) -> endpoint.handle(e, bodies.params(json))));
  }
}
