package dev.veil.console;

import dev.veil.audit.AuditDetails;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import java.time.Instant;
import java.util.Optional;

/**
 * Opt-outs ({@code /opt-outs}): look one up, record one. The identifier travels in the body of a
 * POST (never in a URL, so never in a history or a log), is turned into its first-level hash at
 * once, and is not shown again: the answer says what happened, not to whom. Recording is the {@link
 * dev.veil.optout.OptOutService} call of {@code RecordOptOut}, whose audit record names the
 * identity only by its non-reversible reference.
 */
final class OptOutPages {
  static final String SECTION = "/opt-outs";

  private final ConsoleApi api;

  OptOutPages(ConsoleApi api) {
    this.api = api;
  }

  ConsoleResponse show(ConsoleRequest r) {
    return page(r, 200, null);
  }

  ConsoleResponse lookup(ConsoleRequest r) {
    byte[] hash = firstLevelHash(r);
    Optional<Instant> at = api.optOuts().lookup(hash);
    return page(
        r,
        200,
        at.map(t -> "This identity opted out at " + Layout.time(t) + ".")
            .orElse("This identity has not opted out."));
  }

  ConsoleResponse record(ConsoleRequest r) {
    byte[] hash = firstLevelHash(r);
    Instant at =
        api.audit()
            .record(
                r.actor(),
                "RecordOptOut",
                "identity " + AuditDetails.optOutReference(hash),
                AuditDetails.none(),
                () -> api.optOuts().record(hash));
    return page(r, 200, "The opt-out is recorded (opted out at " + Layout.time(at) + ").");
  }

  private ConsoleResponse page(ConsoleRequest r, int status, String result) {
    Html h = new Html();
    if (result != null) {
      h.element("p", result, "class", "notice", "role", "status");
    }
    form(h, r, "lookup", SECTION + "/lookup", "Look up an opt-out", false);
    form(h, r, "record", SECTION, "Record an opt-out", true);
    return ConsoleResponse.page(status, Layout.page("Opt-outs", SECTION, r, h));
  }

  private static void form(
      Html h, ConsoleRequest r, String id, String action, String title, boolean change) {
    h.open("form", "method", "post", "action", action, "class", "card", "autocomplete", "off");
    h.element("h2", title);
    Layout.csrf(h, r);
    h.raw("<div class=\"field\">").element("label", "Kind of identifier", "for", id + "-kind");
    h.open("select", "id", id + "-kind", "name", "kind");
    h.element("option", "Email address", "value", "email");
    h.element("option", "Phone number (E.164)", "value", "phone");
    h.element("option", "Email hash (base64 SHA-256)", "value", "email_hash");
    h.element("option", "Phone hash (base64 SHA-256)", "value", "phone_hash");
    h.raw("</select></div>");
    Layout.field(h, id + "-value", "Identifier", "value", "", true, null);
    if (change) {
      Layout.reason(h, id + "-reason");
    }
    Layout.submit(h, title.startsWith("Look") ? "Look up" : "Record opt-out");
    h.raw("</form>");
  }

  private byte[] firstLevelHash(ConsoleRequest r) {
    IdentityInput input =
        switch (r.form().text("kind")) {
          case "email" -> IdentityInput.EMAIL;
          case "phone" -> IdentityInput.PHONE;
          case "email_hash" -> IdentityInput.EMAIL_HASH;
          case "phone_hash" -> IdentityInput.PHONE_HASH;
          default -> throw VeilException.clientError("choose the kind of identifier");
        };
    return api.mapper().firstLevelHash(IdentityHash.parse(input, r.form().text("value")));
  }
}
