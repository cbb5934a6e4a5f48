package dev.veil.console;

import dev.veil.client.AdminAction;
import dev.veil.client.ApiClient;
import dev.veil.common.Deadline;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.VeilException;
import dev.veil.core.identity.InvalidIdentifierException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides every console request, in this order: the route ({@link ConsoleRoutes}; unknown path 404,
 * other method 405); sign-in and its form need no session; otherwise the session (none or expired:
 * to the sign-in page) and its client, read afresh from the client registry (disabled, without an
 * operator role any more, or its key rotated since the sign-in: the session ends); for a POST, the
 * session's cross-site request token and the browser's origin headers (403); the role of the
 * route's {@link AdminAction}, checked exactly as the admin gRPC API checks it (403, naming the
 * role); then the handler, its store work bounded by {@code db.timeout} from the request's arrival.
 * Refusals become pages ({@link #refusal}): never a stack trace.
 *
 * <p>Runs on a worker thread: handlers block on the store. Thread-safe.
 */
final class ConsoleDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(ConsoleDispatcher.class);

  private final ConsoleApi api;
  private final Sessions sessions;
  private final SignIn signIn;
  private final List<ConsoleRoute> routes;

  ConsoleDispatcher(ConsoleApi api, Sessions sessions, SignIn signIn, List<ConsoleRoute> routes) {
    this.api = api;
    this.sessions = sessions;
    this.signIn = signIn;
    this.routes = routes;
  }

  ConsoleResponse answer(Incoming in) {
    ConsoleRoute route = null;
    long id = ConsoleRoute.NO_MATCH;
    boolean pathKnown = false;
    for (ConsoleRoute candidate : routes) {
      long matched = candidate.match(in.path());
      if (matched != ConsoleRoute.NO_MATCH) {
        pathKnown = true;
        if (candidate.method().equals(in.method())) {
          route = candidate;
          id = matched;
          break;
        }
      }
    }
    if (route == null) {
      return pathKnown
          ? bare(405, "Method not allowed", "This page does not take that kind of request.")
          : bare(404, "Not found", "There is no such page in the console.");
    }
    Form query;
    Form form;
    try {
      query = Form.parse(in.rawQuery());
      form = in.method().equals("POST") ? Form.parse(in.body()) : Form.EMPTY;
    } catch (VeilException e) {
      return bare(400, "Not accepted", e.getMessage());
    }
    if (in.path().equals(SignIn.PATH)) {
      return in.method().equals("POST") ? signIn.submit(in, form) : signIn.form(query);
    }
    return signedIn(in, route, id, query, form);
  }

  private ConsoleResponse signedIn(
      Incoming in, ConsoleRoute route, long id, Form query, Form form) {
    String sessionId = in.cookie(Incoming.SESSION_COOKIE);
    Sessions.Lookup lookup = sessions.find(sessionId);
    if (lookup instanceof Sessions.Lookup.Expired) {
      return toSignIn("expired");
    }
    if (!(lookup instanceof Sessions.Lookup.Found found)) {
      return ConsoleResponse.redirect(SignIn.PATH)
          .withCookie(Incoming.deleteCookie(Incoming.SESSION_COOKIE, "/"));
    }
    Session session = found.session();
    ApiClient caller = api.clients().registry().byId(session.clientId());
    if (caller == null
        || !caller.enabled()
        || !caller.isOperator()
        || !caller.key().keyId().equals(session.keyId())) {
      sessions.end(session.id());
      return toSignIn("ended");
    }
    ConsoleRequest request = new ConsoleRequest(id, query, form, session, caller);
    if (in.method().equals("POST")) {
      String problem =
          session.csrfMatches(form.text("csrf")) ? in.crossSiteProblem() : "its token is missing";
      if (problem != null) {
        LOG.info("event=console_form_refused client_id={} path={}", caller.id(), route.pattern());
        return page(
            request,
            403,
            "Form refused",
            "The form could not be verified as one of this console's own ("
                + problem
                + "), so nothing was changed. Go back, reload the page and send it again.");
      }
    }
    try {
      AdminAction action = route.action().apply(request);
      if (action != null && !action.allows(caller)) {
        return page(
            request,
            403,
            "Permission denied",
            "Permission denied: "
                + action.method()
                + " needs the "
                + action.role()
                + " role (or ADMIN), which you do not hold.");
      }
      if (!route.bounded()) {
        return route.handler().handle(request);
      }
      return Deadline.startingAt(in.arrivedNanos(), api.storeTimeout(), System::nanoTime)
          .run(() -> route.handler().handle(request));
    } catch (RuntimeException e) {
      return refusal(request, route, e);
    }
  }

  /** The page of a refused or failed request. */
  private ConsoleResponse refusal(ConsoleRequest r, ConsoleRoute route, RuntimeException e) {
    if (e instanceof VeilException v) {
      return switch (v.code()) {
        case NOT_FOUND -> page(r, 404, "Not found", v.getMessage());
        case UNAUTHORIZED -> page(r, 403, "Permission denied", v.getMessage());
        case UNAVAILABLE -> page(r, 503, "Not available", v.getMessage());
        case INTERNAL -> failed(r, route, e);
        default -> page(r, 400, "Not accepted", v.getMessage());
      };
    }
    if (e instanceof InvalidIdentifierException i) {
      return page(r, 400, "Not accepted", i.getMessage());
    }
    if (e instanceof StoreUnavailableException) {
      LOG.warn("event=store_unavailable path={} detail=\"{}\"", route.pattern(), e.getMessage());
      return page(
          r, 503, "Not available", "The store did not answer in time; nothing was changed. Retry.");
    }
    return failed(r, route, e);
  }

  private ConsoleResponse failed(ConsoleRequest r, ConsoleRoute route, RuntimeException e) {
    StackTraceElement origin = e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null;
    LOG.error(
        "event=console_request_failed path={} error={} at={}",
        route.pattern(),
        e.getClass().getName(),
        origin);
    return page(
        r,
        500,
        "Something went wrong",
        "The node could not complete this request. Its log has the details"
            + " (event=console_request_failed).");
  }

  /** A refusal page inside the signed-in frame. */
  static ConsoleResponse page(ConsoleRequest r, int status, String title, String message) {
    Html h = new Html().element("p", message, "class", "error", "role", "alert");
    h.raw("<p><a href=\"/\">Back to the overview</a></p>");
    return ConsoleResponse.page(status, Layout.page(title, null, r, h));
  }

  private static ConsoleResponse bare(int status, String title, String message) {
    Html h = new Html().element("p", message).raw("<p><a href=\"/\">The console</a></p>");
    return ConsoleResponse.page(status, Layout.signedOut(title, h));
  }

  private static ConsoleResponse toSignIn(String why) {
    return ConsoleResponse.redirect(SignIn.PATH + "?why=" + why)
        .withCookie(Incoming.deleteCookie(Incoming.SESSION_COOKIE, "/"));
  }
}
