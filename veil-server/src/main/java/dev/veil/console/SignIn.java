package dev.veil.console;

import dev.veil.client.ApiClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signing in with an admin API key, and out. The key is checked by the API's own {@link
 * dev.veil.client.ApiKeyAuthenticator} (one lookup and a constant-time comparison, the same cost
 * for every wrong key) and then forgotten: the session keeps the client's id and the public id of
 * its key. Every refusal says the same thing, whether the key is unknown, wrong, disabled or
 * without an operator role, so the form tells no more than the admin port does.
 *
 * <p>Refused sign-ins are counted per client address ({@link SignInThrottle}): after ten in a
 * minute, the address's attempts get 429 without their key being checked, until the oldest refusal
 * is a minute old.
 *
 * <p>The sign-in form is protected against cross-site requests before any session exists by a
 * random token sent both as a cookie and in the form (they must match), and by the checks of {@link
 * Incoming#crossSiteProblem}.
 */
final class SignIn {
  private static final Logger LOG = LoggerFactory.getLogger(SignIn.class);
  static final String PATH = "/sign-in";
  static final String REFUSED =
      "Sign-in refused: the key is unknown or disabled, or it holds no operator role.";

  private final ConsoleApi api;
  private final Sessions sessions;
  private final SignInThrottle throttle;

  SignIn(ConsoleApi api, Sessions sessions, SignInThrottle throttle) {
    this.api = api;
    this.sessions = sessions;
    this.throttle = throttle;
  }

  /** The form, with a note for {@code why} (the query's reason to sign in again), if any. */
  ConsoleResponse form(Form query) {
    String message =
        switch (query.text("why")) {
          case "expired" -> "Your session expired. Sign in again.";
          case "ended" ->
              "You were signed out: the client's key was rotated, or the client was disabled or"
                  + " lost its operator roles.";
          case "signed-out" -> "You are signed out.";
          default -> null;
        };
    return form(200, message, false);
  }

  /** Checks the key of the sign-in form; on success, a new session and the overview. */
  ConsoleResponse submit(Incoming in, Form form) {
    String cookie = in.cookie(Incoming.SIGN_IN_COOKIE);
    String token = form.text("token");
    if (cookie == null
        || !MessageDigest.isEqual(
            cookie.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))
        || in.crossSiteProblem() != null) {
      return form(
          403,
          "The sign-in form had expired or did not come from this console. Sign in again.",
          true);
    }
    Duration wait = throttle.waitFor(in.remoteAddress());
    if (!wait.isZero()) {
      LOG.info("event=console_sign_in_throttled wait_s={}", wait.toSeconds());
      return form(
          429,
          "Too many refused sign-ins from your address: the key was not checked. Try again in "
              + wait.toSeconds()
              + " s.",
          true);
    }
    Optional<ApiClient> client = api.authenticator().authenticate("Bearer " + form.text("key"));
    if (client.isEmpty() || !client.get().isOperator()) {
      throttle.refused(in.remoteAddress());
      LOG.info("event=console_sign_in_refused");
      return form(401, REFUSED, true);
    }
    throttle.succeeded(in.remoteAddress());
    sessions.end(in.cookie(Incoming.SESSION_COOKIE));
    Session session = sessions.signIn(client.get());
    LOG.info("event=console_signed_in client_id={}", client.get().id());
    return ConsoleResponse.redirect("/")
        .withCookie(Incoming.setCookie(Incoming.SESSION_COOKIE, session.id(), "/"))
        .withCookie(Incoming.deleteCookie(Incoming.SIGN_IN_COOKIE, PATH));
  }

  /** Ends the session of {@code r}. */
  ConsoleResponse signOut(ConsoleRequest r) {
    sessions.end(r.session().id());
    LOG.info("event=console_signed_out client_id={}", r.caller().id());
    return ConsoleResponse.redirect(PATH + "?why=signed-out")
        .withCookie(Incoming.deleteCookie(Incoming.SESSION_COOKIE, "/"));
  }

  private ConsoleResponse form(int status, String message, boolean alert) {
    String token = sessions.randomToken();
    Html h = new Html();
    if (message != null) {
      h.element(
          "p", message, "class", alert ? "error" : "notice", "role", alert ? "alert" : "status");
    }
    h.element(
        "p",
        "Sign in with an admin API key: a key whose client holds ADMIN or another operator role."
            + " The console keeps who you are for this session, never the key.");
    h.open("form", "method", "post", "action", PATH, "class", "card");
    h.open("input", "type", "hidden", "name", "token", "value", token);
    h.raw("<div class=\"field\"><label for=\"key\">Admin API key</label>");
    h.raw("<input id=\"key\" name=\"key\" type=\"password\" autocomplete=\"off\" required")
        .raw(" spellcheck=\"false\" aria-describedby=\"key-hint\">");
    h.element(
        "p",
        "veil serve saved the first admin key in data/admin.key.",
        "id",
        "key-hint",
        "class",
        "hint");
    h.raw("</div>");
    Layout.submit(h, "Sign in");
    h.raw("</form>");
    return ConsoleResponse.page(status, Layout.signedOut("Sign in", h))
        .withCookie(Incoming.setCookie(Incoming.SIGN_IN_COOKIE, token, PATH));
  }
}
