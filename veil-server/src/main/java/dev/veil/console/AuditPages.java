package dev.veil.console;

import dev.veil.audit.AuditEvent;
import dev.veil.audit.AuditFilter;
import dev.veil.client.AdminAction;
import dev.veil.common.VeilException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The audit trail ({@code /audit}), newest first, {@value #PAGE_SIZE} records a page, filtered by
 * actor, action, target and time (from inclusive, until exclusive; a UTC date or an ISO instant),
 * as {@code ListAuditEvents} lists it. A page's "older" link carries the filters and the id to
 * continue below.
 */
final class AuditPages {
  static final String SECTION = "/audit";
  static final int PAGE_SIZE = 50;

  private final ConsoleApi api;

  AuditPages(ConsoleApi api) {
    this.api = api;
  }

  ConsoleResponse list(ConsoleRequest r) {
    Form q = r.query();
    long actor = q.number("actor", "Actor", 1, Long.MAX_VALUE, 0);
    String action = q.text("action").strip();
    String target = q.text("target").strip();
    Instant from = time(q.text("since"), "Since");
    Instant until = time(q.text("until"), "Until");
    long before = q.number("before", "Position", 1, Long.MAX_VALUE, 0);
    AuditFilter filter =
        new AuditFilter(
            actor == 0 ? null : actor,
            action.isEmpty() ? null : action,
            target.isEmpty() ? null : target,
            from,
            until,
            before == 0 ? null : before);
    List<AuditEvent> events = api.audit().list(filter, PAGE_SIZE + 1);
    Html h = new Html();
    filters(h, q, action);
    h.raw("<table class=\"audit\"><caption>Changes made through the admin API and the console,")
        .raw(" newest first</caption><thead><tr><th scope=\"col\">ID</th>")
        .raw("<th scope=\"col\">Time</th><th scope=\"col\">Actor</th>")
        .raw("<th scope=\"col\">Action</th><th scope=\"col\">Target</th>")
        .raw("<th scope=\"col\">Details</th><th scope=\"col\">Reason</th></tr></thead><tbody>");
    events.stream()
        .limit(PAGE_SIZE)
        .forEach(
            e -> {
              h.raw("<tr>").element("td", e.id()).element("td", Layout.time(e.at()));
              h.element("td", e.actorId() + " " + e.actorName()).element("td", e.action());
              h.element("td", e.target()).element("td", e.details(), "class", "mono");
              h.element("td", e.reason()).raw("</tr>");
            });
    h.raw("</tbody></table>");
    if (events.isEmpty()) {
      h.element("p", "No records match.");
    }
    if (events.size() > PAGE_SIZE) {
      long next = events.get(PAGE_SIZE - 1).id();
      h.raw("<p>").element("a", "Older records", "href", older(q, next)).raw("</p>");
    }
    return ConsoleResponse.page(200, Layout.page("Audit trail", SECTION, r, h));
  }

  private static void filters(Html h, Form q, String action) {
    h.open("form", "method", "get", "action", SECTION, "class", "filters");
    Layout.field(h, "actor", "Actor (client id)", "actor", q.text("actor"), false, null);
    h.raw("<div class=\"field\"><label for=\"action\">Action</label>");
    h.open("select", "id", "action", "name", "action");
    h.element("option", "Any", "value", "");
    for (AdminAction a : AdminAction.values()) {
      if (a.mutation()) {
        h.element(
            "option",
            a.method(),
            "value",
            a.method(),
            "selected",
            a.method().equals(action) ? "" : null);
      }
    }
    h.raw("</select></div>");
    Layout.field(h, "target", "Target", "target", q.text("target"), false, "e.g. client 12");
    Layout.field(h, "since", "Since", "since", q.text("since"), false, "UTC date or time");
    Layout.field(h, "until", "Until", "until", q.text("until"), false, "UTC, exclusive");
    Layout.submit(h, "Filter");
    h.raw("</form>");
  }

  private static String older(Form q, long before) {
    StringBuilder url = new StringBuilder(SECTION).append("?before=").append(before);
    for (String name : List.of("actor", "action", "target", "since", "until")) {
      if (!q.text(name).isEmpty()) {
        url.append('&')
            .append(name)
            .append('=')
            .append(URLEncoder.encode(q.text(name), StandardCharsets.UTF_8));
      }
    }
    return url.toString();
  }

  /** A UTC date ({@code 2026-03-01}) or an ISO instant; null when empty. */
  static Instant time(String text, String label) {
    String t = text.strip();
    if (t.isEmpty()) {
      return null;
    }
    try {
      return t.length() == 10
          ? LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant()
          : Instant.parse(t);
    } catch (DateTimeParseException e) {
      throw VeilException.clientError(
          label + " must be a UTC date such as 2026-03-01 or a time such as 2026-03-01T12:00:00Z");
    }
  }
}
