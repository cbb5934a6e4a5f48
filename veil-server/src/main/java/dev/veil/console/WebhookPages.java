package dev.veil.console;

import dev.veil.audit.AuditDetails;
import dev.veil.common.VeilException;
import dev.veil.webhook.Webhook;
import dev.veil.webhook.WebhookService;
import java.util.Map;

/**
 * Opt-out webhooks ({@code /webhooks}): the list, registering one (its signing secret shown once)
 * and deleting one, each the {@link WebhookService} call of the admin gRPC API, recorded alike (a
 * webhook's record names the host of its URL, never its path or query).
 */
final class WebhookPages {
  static final String SECTION = "/webhooks";

  private final ConsoleApi api;
  private final Sessions sessions;

  WebhookPages(ConsoleApi api, Sessions sessions) {
    this.api = api;
    this.sessions = sessions;
  }

  ConsoleResponse list(ConsoleRequest r) {
    Html h = new Html();
    h.raw("<table><caption>Registered webhooks: each receives every opt-out</caption>")
        .raw("<thead><tr><th scope=\"col\">ID</th><th scope=\"col\">Client</th>")
        .raw("<th scope=\"col\">URL</th><th scope=\"col\">Created</th>")
        .raw("<th scope=\"col\">Delete</th></tr></thead><tbody>");
    for (Webhook w : api.webhooks().list()) {
      h.raw("<tr>").element("td", w.id()).element("td", w.clientId());
      h.element("td", w.url().text(), "class", "mono").element("td", Layout.time(w.createdAt()));
      h.raw("<td>").open("form", "method", "post", "action", SECTION + "/" + w.id() + "/delete");
      Layout.csrf(h, r);
      h.raw("<button type=\"submit\" class=\"secondary\">Delete<span class=\"vh\"> webhook ")
          .text(w.id())
          .raw("</span></button></form></td></tr>");
    }
    h.raw("</tbody></table>");
    h.raw("<section aria-labelledby=\"register\"><h2 id=\"register\">Register a webhook</h2>");
    h.open("form", "method", "post", "action", SECTION, "class", "card");
    Layout.csrf(h, r);
    SecretPage.once(h, r, sessions);
    Layout.field(h, "client-id", "Client id", "client_id", "", true, "The bidder's client.");
    Layout.field(
        h,
        "url",
        "URL",
        "url",
        "",
        true,
        "An http or https URL; %%identity%% and %%timestamp%% are filled in for each opt-out.");
    Layout.reason(h, "webhook-reason");
    Layout.submit(h, "Register webhook");
    h.raw("</form></section>");
    return ConsoleResponse.page(200, Layout.page("Webhooks", SECTION, r, h));
  }

  ConsoleResponse register(ConsoleRequest r) {
    long clientId = r.form().number("client_id", "Client id", 1, Long.MAX_VALUE, 0);
    if (clientId == 0) {
      throw VeilException.clientError("Client id is required");
    }
    String url = r.form().text("url");
    var actor = r.actor();
    ConsoleResponse repeat = SecretPage.refuseRepeat(r, SECTION);
    if (repeat != null) {
      return repeat;
    }
    WebhookService.Created created =
        api.audit()
            .recordCreation(
                actor,
                "RegisterWebhook",
                "webhook",
                AuditDetails.of().put("client_id", clientId).put("host", host(url)).json(),
                () -> api.webhooks().register(clientId, url));
    Html intro =
        new Html()
            .element(
                "p",
                "Webhook "
                    + created.webhook().id()
                    + " for client "
                    + clientId
                    + " was registered. Give the secret to the bidder with the URL: it checks"
                    + " each request's signature with it.");
    return SecretPage.show(
        "Webhook registered",
        SECTION,
        r,
        intro,
        Map.of("Signing secret", created.secret().reveal()));
  }

  ConsoleResponse delete(ConsoleRequest r) {
    api.audit()
        .record(
            r.actor(),
            "DeleteWebhook",
            "webhook " + r.id(),
            AuditDetails.none(),
            () -> api.webhooks().delete(r.id()));
    r.session().notice("Webhook " + r.id() + " was deleted.");
    return ConsoleResponse.redirect(SECTION);
  }

  /** The host of a webhook URL (its path and query may hold a receiver's token), or "". */
  private static String host(String url) {
    try {
      String host = java.net.URI.create(url.strip()).getHost();
      return host == null ? "" : host;
    } catch (IllegalArgumentException e) {
      return "";
    }
  }
}
