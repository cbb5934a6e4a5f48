package dev.veil.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One signed-in browser: the client it acts as (by id and the public id of the key it signed in
 * with, never the key), its cross-site request token, and the single-use tokens of forms whose
 * answer shows a secret. Thread-safe.
 */
final class Session {
  /** Forms of one session that may be open (unsent) at once; older ones are forgotten. */
  private static final int MAX_OPEN_FORMS = 64;

  private final String id;
  private final long clientId;
  private final String keyId;
  private final String csrfToken;
  private final Instant created;
  private final Deque<String> openForms = new ArrayDeque<>();
  private Instant lastSeen;
  private String notice;

  Session(String id, long clientId, String keyId, String csrfToken, Instant created) {
    this.id = id;
    this.clientId = clientId;
    this.keyId = keyId;
    this.csrfToken = csrfToken;
    this.created = created;
    this.lastSeen = created;
  }

  String id() {
    return id;
  }

  long clientId() {
    return clientId;
  }

  /** The public id of the key the session signed in with: rotating it ends the session. */
  String keyId() {
    return keyId;
  }

  String csrfToken() {
    return csrfToken;
  }

  Instant created() {
    return created;
  }

  synchronized Instant lastSeen() {
    return lastSeen;
  }

  synchronized void seen(Instant at) {
    lastSeen = at;
  }

  /** Whether {@code presented} is this session's token, compared in constant time. */
  boolean csrfMatches(String presented) {
    return presented != null
        && MessageDigest.isEqual(
            csrfToken.getBytes(StandardCharsets.US_ASCII),
            presented.getBytes(StandardCharsets.US_ASCII));
  }

  /** Remembers {@code token} as a form that may be sent once. */
  synchronized void openForm(String token) {
    if (openForms.size() == MAX_OPEN_FORMS) {
      openForms.removeFirst();
    }
    openForms.addLast(token);
  }

  /** Whether {@code token} names a form not sent yet; it cannot be sent again after this. */
  synchronized boolean sendForm(String token) {
    return token != null && openForms.remove(token);
  }

  /** A message for the next page shown (after a redirect); never a secret. */
  synchronized void notice(String message) {
    notice = message;
  }

  /** The pending notice, once; null when there is none. */
  synchronized String takeNotice() {
    String message = notice;
    notice = null;
    return message;
  }
}
