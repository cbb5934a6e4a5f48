package dev.veil.console;

import dev.veil.client.ApiClient;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The console's signed-in sessions, in this node's memory (a restart signs everybody out; each node
 * of a cluster has its own). A session id is 32 random bytes (256 bits) in base64url; a session
 * ends {@code idleTimeout} after its last request and {@code lifetime} after its sign-in, on the
 * injected clock. At most {@value #MAX_SESSIONS} exist at once: a sign-in beyond that ends the
 * least recently used. Thread-safe.
 */
final class Sessions {
  static final int MAX_SESSIONS = 1000;

  private final Map<String, Session> byId = new ConcurrentHashMap<>();
  private final Clock clock;
  private final SecureRandom random;
  private final Duration idleTimeout;
  private final Duration lifetime;

  Sessions(Clock clock, SecureRandom random, Duration idleTimeout, Duration lifetime) {
    this.clock = clock;
    this.random = random;
    this.idleTimeout = idleTimeout;
    this.lifetime = lifetime;
  }

  /** What a session id presented by a browser turned out to be. */
  sealed interface Lookup {
    record Found(Session session) implements Lookup {}

    /** A session that existed and has ended by time: the page says so. */
    record Expired() implements Lookup {}

    /** No id, or one this node does not know. */
    record Unknown() implements Lookup {}
  }

  /** A new session for {@code client}, which signed in just now. */
  Session signIn(ApiClient client) {
    purgeExpired();
    while (byId.size() >= MAX_SESSIONS) {
      byId.values().stream()
          .min(Comparator.comparing(Session::lastSeen))
          .ifPresent(oldest -> byId.remove(oldest.id()));
    }
    Session session =
        new Session(
            randomToken(), client.id(), client.key().keyId(), randomToken(), clock.instant());
    byId.put(session.id(), session);
    return session;
  }

  /** The session {@code id} names, touched; an expired one is removed. */
  Lookup find(String id) {
    Session session = id == null ? null : byId.get(id);
    if (session == null) {
      return new Lookup.Unknown();
    }
    Instant now = clock.instant();
    if (expired(session, now)) {
      byId.remove(id);
      return new Lookup.Expired();
    }
    session.seen(now);
    return new Lookup.Found(session);
  }

  /** Ends session {@code id}, if it exists. */
  void end(String id) {
    if (id != null) {
      byId.remove(id);
    }
  }

  int size() {
    return byId.size();
  }

  /** 32 random bytes in unpadded base64url. */
  String randomToken() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private boolean expired(Session session, Instant now) {
    return !now.isBefore(session.lastSeen().plus(idleTimeout))
        || !now.isBefore(session.created().plus(lifetime));
  }

  private void purgeExpired() {
    Instant now = clock.instant();
    byId.values().removeIf(s -> expired(s, now));
  }
}
