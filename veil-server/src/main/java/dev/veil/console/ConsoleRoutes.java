package dev.veil.console;

import static dev.veil.console.ConsoleRoute.get;
import static dev.veil.console.ConsoleRoute.post;

import dev.veil.client.AdminAction;
import java.util.List;

/**
 * The console's route table: every page and form, the {@link AdminAction} it performs (so the role
 * it needs, the same as on the admin gRPC API) and the handler that answers it. Read this to know
 * what the console can do; {@link ConsoleDispatcher} applies it.
 */
final class ConsoleRoutes {
  private ConsoleRoutes() {}

  static List<ConsoleRoute> of(
      ConsoleApi api, Sessions sessions, SignIn signIn, RequestRates rates) {
    OverviewPage overview = new OverviewPage(api, rates);
    ClientPages clients = new ClientPages(api, sessions);
    SitePages sites = new SitePages(api);
    WebhookPages webhooks = new WebhookPages(api, sessions);
    KeyPages keys = new KeyPages(api);
    OptOutPages optOuts = new OptOutPages(api);
    DeductionPages deductions = new DeductionPages(api, sessions);
    AuditPages audit = new AuditPages(api);
    return List.of(
        // Sign-in needs no session (the dispatcher answers it before looking for one).
        get(SignIn.PATH, null, r -> null),
        post(SignIn.PATH, null, r -> null),
        post("/sign-out", null, signIn::signOut),
        get("/", null, overview::show),
        get("/clients", AdminAction.LIST_CLIENTS, clients::list),
        post("/clients", AdminAction.CREATE_CLIENT, clients::create),
        get("/clients/{id}", AdminAction.LIST_CLIENTS, clients::show),
        post("/clients/{id}/enabled", AdminAction.SET_CLIENT_ENABLED, clients::setEnabled),
        post("/clients/{id}/rotate-key", AdminAction.ROTATE_CLIENT_KEY, clients::rotateKey),
        post(
            "/clients/{id}/rotate-secret", AdminAction.ROTATE_CLIENT_SECRET, clients::rotateSecret),
        get("/sites", AdminAction.LIST_SITES, sites::list),
        get("/sites/{id}", AdminAction.LIST_SITES, sites::show),
        post("/sites/{id}", AdminAction.UPDATE_SITE, sites::update),
        post("/sites/{id}/sharing", AdminAction.SET_SITE_SHARING, sites::setSharing),
        get("/webhooks", AdminAction.LIST_WEBHOOKS, webhooks::list),
        post("/webhooks", AdminAction.REGISTER_WEBHOOK, webhooks::register),
        post("/webhooks/{id}/delete", AdminAction.DELETE_WEBHOOK, webhooks::delete),
        get("/keys", AdminAction.LIST_KEYS, keys::show),
        new ConsoleRoute(
            "POST", "/keys/rotate", r -> AdminAction.ROTATE_KEYS, false, keys::rotateKeys),
        new ConsoleRoute(
            "POST", "/salts/rotate", r -> AdminAction.ROTATE_SALTS, false, keys::rotateSalts),
        get("/opt-outs", AdminAction.LOOKUP_OPT_OUT, optOuts::show),
        post("/opt-outs/lookup", AdminAction.LOOKUP_OPT_OUT, optOuts::lookup),
        post("/opt-outs", AdminAction.RECORD_OPT_OUT, optOuts::record),
        new ConsoleRoute("GET", "/deductions", DeductionPages::listAction, true, deductions::list),
        post("/deductions", AdminAction.CREATE_DEDUCTION, deductions::create),
        get("/deductions/{id}", AdminAction.GET_DEDUCTION, deductions::show),
        post("/deductions/{id}/open", AdminAction.OPEN_DEDUCTION, deductions::open),
        post("/deductions/{id}/close", AdminAction.CLOSE_DEDUCTION, deductions::close),
        get("/audit", AdminAction.LIST_AUDIT_EVENTS, audit::list));
  }
}
