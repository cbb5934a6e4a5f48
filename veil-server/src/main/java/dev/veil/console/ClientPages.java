package dev.veil.console;

import dev.veil.audit.AuditDetails;
import dev.veil.client.ApiClient;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * API clients: the list and the create form ({@code /clients}), one client with its changes ({@code
 * /clients/{id}}: enable or disable, rotate the key or the secret). Each change is the {@link
 * dev.veil.client.ClientService} call the admin gRPC API makes, recorded in the audit trail with
 * the same action, target and details as there.
 */
final class ClientPages {
  static final String SECTION = "/clients";

  private final ConsoleApi api;
  private final Sessions sessions;

  ClientPages(ConsoleApi api, Sessions sessions) {
    this.api = api;
    this.sessions = sessions;
  }

  ConsoleResponse list(ConsoleRequest r) {
    Html h = new Html();
    h.raw("<table><caption>Every API client of the service</caption><thead><tr>")
        .raw("<th scope=\"col\">ID</th><th scope=\"col\">Name</th><th scope=\"col\">Site</th>")
        .raw("<th scope=\"col\">Roles</th><th scope=\"col\">Status</th>")
        .raw("<th scope=\"col\">Created</th><th scope=\"col\">Key id</th></tr></thead><tbody>");
    for (ApiClient c : api.clients().list()) {
      h.raw("<tr>").element("td", c.id());
      h.raw("<td>").element("a", c.name(), "href", "/clients/" + c.id()).raw("</td>");
      h.element("td", c.siteId()).element("td", roles(c.roles()));
      h.element("td", c.enabled() ? "enabled" : "disabled");
      h.element("td", Layout.time(c.created())).element("td", c.key().keyId(), "class", "mono");
      h.raw("</tr>");
    }
    h.raw("</tbody></table>");
    h.raw("<section aria-labelledby=\"create\"><h2 id=\"create\">Create a client</h2>");
    h.open("form", "method", "post", "action", SECTION, "class", "card");
    Layout.csrf(h, r);
    SecretPage.once(h, r, sessions);
    Layout.field(h, "name", "Name", "name", "", true, null);
    Layout.field(
        h,
        "site-id",
        "Site id (optional)",
        "site_id",
        "",
        false,
        "Empty: a site of its own. A number puts the client on that site.");
    roleChoices(h, "Public API roles", false);
    roleChoices(h, "Operator roles (this console and the admin API)", true);
    Layout.reason(h, "create-reason");
    Layout.submit(h, "Create client");
    h.raw("</form></section>");
    return ConsoleResponse.page(200, Layout.page("Clients", SECTION, r, h));
  }

  private static void roleChoices(Html h, String legend, boolean operator) {
    h.raw("<fieldset><legend>").text(legend).raw("</legend><div class=\"choices\">");
    for (Role role : Role.values()) {
      if (role.isOperatorRole() != operator) {
        continue;
      }
      String id = "role-" + role.name().toLowerCase(Locale.ROOT).replace('_', '-');
      h.raw("<div>");
      h.open("input", "type", "checkbox", "id", id, "name", "roles", "value", role.name());
      h.element("label", role.name(), "for", id).raw("</div>");
    }
    h.raw("</div></fieldset>");
  }

  ConsoleResponse create(ConsoleRequest r) {
    String name = r.form().text("name");
    if (name.chars().anyMatch(Character::isISOControl)) {
      throw VeilException.clientError("name: must not contain control characters");
    }
    int siteId = (int) r.form().number("site_id", "Site id", 0, Integer.MAX_VALUE, 0);
    Set<Role> roles = roles(r);
    String details =
        AuditDetails.of()
            .put("name", name)
            .put("site_id", siteId)
            .put("roles", new TreeSet<>(roles))
            .json();
    var actor = r.actor();
    ConsoleResponse repeat = SecretPage.refuseRepeat(r, SECTION);
    if (repeat != null) {
      return repeat;
    }
    CreatedClient created =
        api.audit()
            .recordCreation(
                actor,
                "CreateClient",
                "client",
                details,
                () -> api.clients().create(r.caller(), name, siteId, roles));
    ApiClient c = created.client();
    Html intro = new Html();
    intro.element(
        "p",
        "Client "
            + c.id()
            + " ("
            + c.name()
            + ") was created on site "
            + c.siteId()
            + " with the roles "
            + roles(c.roles())
            + ".");
    Map<String, String> secrets = new LinkedHashMap<>();
    secrets.put("API key", created.key().reveal());
    secrets.put("Secret", c.secret().reveal());
    return SecretPage.show("Client created", SECTION, r, intro, secrets);
  }

  ConsoleResponse show(ConsoleRequest r) {
    ApiClient c = existing(r.id());
    Html h = new Html().raw("<dl>");
    h.element("dt", "ID").element("dd", c.id());
    h.element("dt", "Name").element("dd", c.name());
    h.element("dt", "Site").element("dd", c.siteId());
    h.element("dt", "Roles").element("dd", roles(c.roles()));
    h.element("dt", "Status").element("dd", c.enabled() ? "enabled" : "disabled");
    h.element("dt", "Created").element("dd", Layout.time(c.created()));
    h.element("dt", "Key id").element("dd", c.key().keyId(), "class", "mono");
    h.raw("</dl>");
    String base = SECTION + "/" + c.id();
    h.raw("<div class=\"actions\">");
    action(
        h,
        r,
        base + "/enabled",
        "enabled",
        c.enabled() ? "Disable client" : "Enable client",
        c.enabled() ? "Its key is refused at once on every node." : "Its key works again.",
        false);
    action(
        h,
        r,
        base + "/rotate-key",
        "key",
        "Rotate API key",
        "A new key, shown once; the old one stops working at once.",
        true);
    action(
        h,
        r,
        base + "/rotate-secret",
        "secret",
        "Rotate secret",
        "A new secret for v2 envelopes, shown once; the old one stops working at once.",
        true);
    h.raw("</div>");
    return ConsoleResponse.page(200, Layout.page("Client " + c.id(), SECTION, r, h));
  }

  private void action(
      Html h,
      ConsoleRequest r,
      String path,
      String id,
      String label,
      String what,
      boolean showsSecret) {
    h.open("form", "method", "post", "action", path, "class", "card");
    h.element("h2", label).element("p", what);
    Layout.csrf(h, r);
    if (showsSecret) {
      SecretPage.once(h, r, sessions);
    } else {
      h.open(
          "input",
          "type",
          "hidden",
          "name",
          "enabled",
          "value",
          label.startsWith("Enable") ? "true" : "false");
    }
    Layout.reason(h, id + "-reason");
    Layout.submit(h, label);
    h.raw("</form>");
  }

  ConsoleResponse setEnabled(ConsoleRequest r) {
    boolean enabled =
        switch (r.form().text("enabled")) {
          case "true" -> true;
          case "false" -> false;
          default -> throw VeilException.clientError("enabled must be true or false");
        };
    ApiClient c =
        api.audit()
            .record(
                r.actor(),
                "SetClientEnabled",
                "client " + r.id(),
                AuditDetails.of().put("enabled", enabled).json(),
                () -> api.clients().setEnabled(r.caller(), r.id(), enabled));
    r.session().notice("Client " + c.id() + " is " + (c.enabled() ? "enabled." : "disabled."));
    return ConsoleResponse.redirect(SECTION + "/" + c.id());
  }

  ConsoleResponse rotateKey(ConsoleRequest r) {
    r.actor(); // a reason the audit trail refuses is refused before the form's token is used
    ConsoleResponse repeat = SecretPage.refuseRepeat(r, SECTION + "/" + r.id());
    if (repeat != null) {
      return repeat;
    }
    CreatedClient rotated =
        api.audit()
            .record(
                r.actor(),
                "RotateClientKey",
                "client " + r.id(),
                AuditDetails.none(),
                () -> api.clients().rotateKey(r.caller(), r.id()));
    Html intro = new Html().element("p", "Client " + r.id() + " has a new API key.");
    return SecretPage.show(
        "API key rotated", SECTION, r, intro, Map.of("API key", rotated.key().reveal()));
  }

  ConsoleResponse rotateSecret(ConsoleRequest r) {
    r.actor(); // a reason the audit trail refuses is refused before the form's token is used
    ConsoleResponse repeat = SecretPage.refuseRepeat(r, SECTION + "/" + r.id());
    if (repeat != null) {
      return repeat;
    }
    ApiClient rotated =
        api.audit()
            .record(
                r.actor(),
                "RotateClientSecret",
                "client " + r.id(),
                AuditDetails.none(),
                () -> api.clients().rotateSecret(r.caller(), r.id()));
    Html intro = new Html().element("p", "Client " + r.id() + " has a new secret.");
    return SecretPage.show(
        "Secret rotated", SECTION, r, intro, Map.of("Secret", rotated.secret().reveal()));
  }

  private ApiClient existing(long id) {
    ApiClient c = api.clients().registry().byId(id);
    if (c == null) {
      throw new VeilException(ErrorCode.NOT_FOUND, "There is no client " + id + ".");
    }
    return c;
  }

  private static Set<Role> roles(ConsoleRequest r) {
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String name : r.form().all("roles")) {
      try {
        roles.add(Role.valueOf(name));
      } catch (IllegalArgumentException e) {
        throw VeilException.clientError("roles: not a role of this service");
      }
    }
    if (roles.isEmpty()) {
      throw VeilException.clientError("roles: choose at least one role");
    }
    return roles;
  }

  static String roles(Set<Role> roles) {
    return roles.stream().sorted().map(Role::name).collect(Collectors.joining(", "));
  }
}
