package dev.veil.http;

import dev.veil.client.Role;
import dev.veil.observability.Metrics;
import dev.veil.observability.RequestMetrics;
import io.vertx.core.http.HttpMethod;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One path of the API: who may call it ({@link Access}), whether CORS applies, and the {@link
 * Endpoint} per method. Built once by {@link RequestDispatcher}; immutable afterwards.
 */
final class Route {
  /** Who may call a route. */
  enum Access {
    /** No key needed; a key sent is ignored. */
    OPEN,
    /** No key needed; a valid key is noted (refresh: it changes error details). */
    OPTIONAL_KEY,
    /** Any valid key. */
    ANY_KEY,
    /** A valid key with one of {@link Route#roles()}. */
    ROLE
  }

  private static final String API_PREFIX = "/v1/";

  private final String path;
  private final Access access;
  private final Set<Role> roles;
  private final boolean cors;
  private final Map<HttpMethod, Endpoint> endpoints;
  private final Map<HttpMethod, RequestMetrics> metrics;
  private final RequestMetrics otherMethods;
  private final String allow;

  private Route(Builder b, Metrics registry) {
    this.path = b.path;
    this.access = b.access;
    this.roles = b.roles;
    this.cors = b.cors;
    Map<HttpMethod, Endpoint> byMethod = new LinkedHashMap<>(b.endpoints);
    if (access == Access.OPEN
        && byMethod.containsKey(HttpMethod.GET)
        && !path.startsWith(API_PREFIX)) {
      // Monitors and caches ask with HEAD: the GET's answer, headers only (the server drops the
      // body).
      // Not on /v1 routes, which answer HEAD with 405 whatever the profile (validate is open in
      // uid2).
      byMethod.put(HttpMethod.HEAD, byMethod.get(HttpMethod.GET));
    }
    this.endpoints = Map.copyOf(byMethod);
    Map<HttpMethod, RequestMetrics> perMethod = new LinkedHashMap<>();
    byMethod.keySet().forEach(m -> perMethod.put(m, registry.httpRequests(path, m.name())));
    if (cors) {
      perMethod.put(HttpMethod.OPTIONS, registry.httpRequests(path, HttpMethod.OPTIONS.name()));
    }
    this.metrics = Map.copyOf(perMethod);
    this.otherMethods = registry.httpRequests(path, "other");
    this.allow =
        byMethod.keySet().stream().map(HttpMethod::name).collect(Collectors.joining(", "))
            + (cors ? ", OPTIONS" : "");
  }

  static Builder at(String path) {
    return new Builder(path);
  }

  String path() {
    return path;
  }

  Access access() {
    return access;
  }

  /** The roles of which a caller needs one (empty unless {@link Access#ROLE}). */
  Set<Role> roles() {
    return roles;
  }

  /**
   * Whether this is a route of UID2's v2 or v3 API, whose error answers are spelled as UID2 spells
   * them ({@code client_error}) whatever the server's profile, from the first check on: a body over
   * the size limit is refused before the envelope is opened.
   */
  boolean speaksUid2() {
    return path.startsWith("/v2/") || path.startsWith("/v3/");
  }

  boolean cors() {
    return cors;
  }

  /** The endpoint for {@code method}, or null (405). */
  Endpoint endpoint(HttpMethod method) {
    return endpoints.get(method);
  }

  RequestMetrics metrics(HttpMethod method) {
    RequestMetrics m = metrics.get(method);
    return m == null ? otherMethods : m;
  }

  /** The {@code Allow} header value for a 405. */
  String allow() {
    return allow;
  }

  static final class Builder {
    private final String path;
    private final Map<HttpMethod, Endpoint> endpoints = new LinkedHashMap<>();
    private Access access = Access.OPEN;
    private Set<Role> roles = Set.of();
    private boolean cors;

    private Builder(String path) {
      this.path = path;
    }

    Builder open() {
      access = Access.OPEN;
      return this;
    }

    Builder optionalKey() {
      access = Access.OPTIONAL_KEY;
      return this;
    }

    Builder anyKey() {
      access = Access.ANY_KEY;
      return this;
    }

    Builder role(Role needed) {
      access = Access.ROLE;
      roles = Set.of(needed);
      return this;
    }

    /** A valid key with any of these roles. */
    Builder roles(Role needed, Role... orThese) {
      access = Access.ROLE;
      roles = Set.copyOf(EnumSet.of(needed, orThese));
      return this;
    }

    /** Answers CORS preflights and adds CORS headers (see {@link Cors}). */
    Builder cors() {
      cors = true;
      return this;
    }

    Builder get(Endpoint endpoint) {
      endpoints.put(HttpMethod.GET, endpoint);
      return this;
    }

    Builder post(Endpoint endpoint) {
      endpoints.put(HttpMethod.POST, endpoint);
      return this;
    }

    Route build(Metrics registry) {
      return new Route(this, registry);
    }
  }
}
