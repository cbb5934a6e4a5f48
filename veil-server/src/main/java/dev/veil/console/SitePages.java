package dev.veil.console;

import dev.veil.audit.AuditDetails;
import dev.veil.client.ApiClient;
import dev.veil.common.VeilException;
import dev.veil.site.ParticipantType;
import dev.veil.site.Sharing;
import dev.veil.site.Site;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Sites and their sharing permissions: the list ({@code /sites}: every site a client is on or that
 * has settings) and one site ({@code /sites/{id}}: its domain names and participant types, and who
 * may decrypt the tokens made under its keyset), each change the {@link dev.veil.site.SiteService}
 * call of {@code UpdateSite} or {@code SetSiteSharing}.
 */
final class SitePages {
  static final String SECTION = "/sites";

  private final ConsoleApi api;

  SitePages(ConsoleApi api) {
    this.api = api;
  }

  ConsoleResponse list(ConsoleRequest r) {
    Set<Integer> ids = new TreeSet<>();
    api.sites().directory().all().forEach(s -> ids.add(s.siteId()));
    api.clients().list().stream().map(ApiClient::siteId).forEach(ids::add);
    Html h = new Html();
    h.raw("<table><caption>Sites of clients, and sites with settings</caption><thead><tr>")
        .raw("<th scope=\"col\">Site</th><th scope=\"col\">Domain and app names</th>")
        .raw("<th scope=\"col\">Types</th><th scope=\"col\">Sharing</th>")
        .raw("<th scope=\"col\">Changed</th></tr></thead><tbody>");
    for (int id : ids) {
      Site s = api.sites().directory().site(id);
      h.raw("<tr><td>").element("a", "Site " + id, "href", SECTION + "/" + id).raw("</td>");
      h.element("td", String.join(", ", s.domainNames())).element("td", types(s.types()));
      h.element("td", sharing(s)).element("td", changed(s)).raw("</tr>");
    }
    h.raw("</tbody></table>");
    return ConsoleResponse.page(200, Layout.page("Sites and sharing", SECTION, r, h));
  }

  ConsoleResponse show(ConsoleRequest r) {
    int id = siteId(r);
    Site s = api.sites().directory().site(id);
    String base = SECTION + "/" + id;
    Html h = new Html().raw("<dl>");
    h.element("dt", "Domain and app names").element("dd", String.join(", ", s.domainNames()));
    h.element("dt", "Types").element("dd", types(s.types()));
    h.element("dt", "Sharing").element("dd", sharing(s));
    h.element("dt", "Changed").element("dd", changed(s)).raw("</dl>");

    h.open("form", "method", "post", "action", base, "class", "card");
    h.element("h2", "Domain names and types");
    Layout.csrf(h, r);
    Layout.field(
        h,
        "domains",
        "Domain and app names",
        "domain_names",
        String.join(", ", s.domainNames()),
        false,
        "Separated by commas; sent to bidders as the site's names. Empty clears them.");
    typeChoices(h, "Participant types", "types", "type", s.types());
    Layout.reason(h, "site-reason");
    Layout.submit(h, "Save names and types");
    h.raw("</form>");

    h.open("form", "method", "post", "action", base + "/sharing", "class", "card");
    h.element("h2", "Sharing");
    Layout.csrf(h, r);
    h.raw("<fieldset><legend>Who may decrypt tokens made under this site's keyset</legend>");
    radio(h, "sharing-default", "default", s.sharing().isEmpty(), "The default: every bidder");
    radio(h, "sharing-listed", "listed", s.sharing().isPresent(), "Only the sites and types below");
    h.raw("</fieldset>");
    Optional<Sharing> sharing = s.sharing();
    Layout.field(
        h,
        "allowed-sites",
        "Allowed sites",
        "allowed_sites",
        sharing
            .map(
                x ->
                    new TreeSet<>(x.allowedSites())
                        .stream().map(String::valueOf).collect(Collectors.joining(", ")))
            .orElse(""),
        false,
        "Site ids separated by commas.");
    typeChoices(
        h,
        "Allowed types",
        "allowed_types",
        "allowed",
        sharing.map(Sharing::allowedTypes).orElse(Set.of()));
    Layout.reason(h, "sharing-reason");
    Layout.submit(h, "Save sharing");
    h.raw("</form>");
    return ConsoleResponse.page(200, Layout.page("Site " + id, SECTION, r, h));
  }

  ConsoleResponse update(ConsoleRequest r) {
    int id = siteId(r);
    List<String> names =
        Arrays.stream(r.form().text("domain_names").split(","))
            .map(String::strip)
            .filter(n -> !n.isEmpty())
            .toList();
    Set<ParticipantType> types = types(r.form().all("types"));
    String details =
        AuditDetails.of().put("domain_names", names).put("types", new TreeSet<>(types)).json();
    api.audit()
        .record(
            r.actor(),
            "UpdateSite",
            "site " + id,
            details,
            () -> api.sites().update(id, Optional.of(names), Optional.of(types)));
    r.session().notice("Site " + id + " saved.");
    return ConsoleResponse.redirect(SECTION + "/" + id);
  }

  ConsoleResponse setSharing(ConsoleRequest r) {
    int id = siteId(r);
    boolean reset =
        switch (r.form().text("sharing")) {
          case "default" -> true;
          case "listed" -> false;
          default -> throw VeilException.clientError("sharing: choose the default or a list");
        };
    List<Integer> sites = r.form().numbers("allowed_sites", "Allowed sites");
    List<String> typeNames = r.form().all("allowed_types");
    Optional<Sharing> sharing =
        reset ? Optional.empty() : Optional.of(new Sharing(new HashSet<>(sites), types(typeNames)));
    String details =
        reset
            ? AuditDetails.of().put("reset_to_default", true).json()
            : AuditDetails.of().put("allowed_sites", sites).put("allowed_types", typeNames).json();
    api.audit()
        .record(
            r.actor(),
            "SetSiteSharing",
            "site " + id,
            details,
            () -> api.sites().setSharing(id, sharing));
    r.session().notice("The sharing of site " + id + " was saved.");
    return ConsoleResponse.redirect(SECTION + "/" + id);
  }

  private static int siteId(ConsoleRequest r) {
    if (r.id() > Integer.MAX_VALUE) {
      throw VeilException.clientError("not a site id");
    }
    return (int) r.id();
  }

  private static void radio(Html h, String id, String value, boolean checked, String label) {
    h.raw("<div>");
    h.open(
        "input",
        "type",
        "radio",
        "id",
        id,
        "name",
        "sharing",
        "value",
        value,
        "checked",
        checked ? "" : null);
    h.element("label", label, "for", id).raw("</div>");
  }

  private static void typeChoices(
      Html h, String legend, String name, String idPrefix, Set<ParticipantType> chosen) {
    h.raw("<fieldset><legend>").text(legend).raw("</legend><div class=\"choices\">");
    for (ParticipantType type : ParticipantType.values()) {
      String id = idPrefix + "-" + type.name().toLowerCase(Locale.ROOT);
      h.raw("<div>");
      h.open(
          "input",
          "type",
          "checkbox",
          "id",
          id,
          "name",
          name,
          "value",
          type.name(),
          "checked",
          chosen.contains(type) ? "" : null);
      h.element("label", type.name(), "for", id).raw("</div>");
    }
    h.raw("</div></fieldset>");
  }

  private static Set<ParticipantType> types(Collection<String> names) {
    try {
      return ParticipantType.parseAll(names);
    } catch (IllegalArgumentException e) {
      throw VeilException.clientError(e.getMessage());
    }
  }

  private static String types(Set<ParticipantType> types) {
    return types.isEmpty()
        ? "none"
        : EnumSet.copyOf(types).stream().map(Enum::name).collect(Collectors.joining(", "));
  }

  private static String sharing(Site s) {
    return s.sharing()
        .map(
            x ->
                "sites "
                    + (x.allowedSites().isEmpty()
                        ? "none"
                        : new TreeSet<>(x.allowedSites()).toString())
                    + "; types "
                    + types(x.allowedTypes()))
        .orElse("default (every bidder)");
  }

  private static String changed(Site s) {
    return s.updated().equals(java.time.Instant.EPOCH) ? "never" : Layout.time(s.updated());
  }
}
