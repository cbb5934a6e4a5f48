package dev.veil.console;

import dev.veil.client.Role;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The frame of every console page: the document head (one style sheet and one script, both served
 * by the console itself, as its Content Security Policy demands), a skip link, the header with the
 * signed-in client and the sign-out button, the navigation, the notice of the last action, and the
 * page's {@code main}. And the small form parts every page uses.
 */
final class Layout {
  /** The pages of the navigation, in order: path, label. */
  static final List<String[]> NAVIGATION =
      List.of(
          new String[] {"/", "Overview"},
          new String[] {"/clients", "Clients"},
          new String[] {"/sites", "Sites and sharing"},
          new String[] {"/webhooks", "Webhooks"},
          new String[] {"/keys", "Keys and salts"},
          new String[] {"/opt-outs", "Opt-outs"},
          new String[] {"/deductions", "Deductions"},
          new String[] {"/audit", "Audit trail"});

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  private Layout() {}

  /** A page for a signed-in client; {@code section} is the navigation path it belongs to. */
  static String page(String title, String section, ConsoleRequest r, Html content) {
    Html h = head(title);
    h.raw("<header class=\"top\"><p class=\"brand\">Veil console</p><div class=\"who\">");
    h.raw("<p>Signed in as ").element("strong", r.caller().name());
    h.text(" (client " + r.caller().id() + "; " + roles(r) + ")").raw("</p>");
    h.open("form", "method", "post", "action", "/sign-out", "class", "inline");
    csrf(h, r);
    h.raw("<button type=\"submit\" class=\"secondary\">Sign out</button></form></div></header>");
    h.open("nav", "aria-label", "Console").raw("<ul>");
    for (String[] item : NAVIGATION) {
      h.raw("<li>")
          .element(
              "a",
              item[1],
              "href",
              item[0],
              "aria-current",
              item[0].equals(section) ? "page" : null)
          .raw("</li>");
    }
    h.raw("</ul></nav><main id=\"main\">").element("h1", title);
    String notice = r.session().takeNotice();
    if (notice != null) {
      h.element("p", notice, "class", "notice", "role", "status");
    }
    return h.append(content).raw("</main></body></html>").toString();
  }

  /** A page for a browser that is not signed in (sign-in, expired session). */
  static String signedOut(String title, Html content) {
    Html h = head(title);
    h.raw("<header class=\"top\"><p class=\"brand\">Veil console</p></header>");
    h.raw("<main id=\"main\">").element("h1", title);
    return h.append(content).raw("</main></body></html>").toString();
  }

  private static Html head(String title) {
    return new Html()
        .raw("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .element("title", title + " · Veil console")
        .raw("<link rel=\"stylesheet\" href=\"/static/console.css\">")
        .raw("<script src=\"/static/console.js\" defer></script></head><body>")
        .raw("<a class=\"skip\" href=\"#main\">Skip to content</a>");
  }

  private static String roles(ConsoleRequest r) {
    return r.caller().roles().stream()
        .filter(Role::isOperatorRole)
        .sorted()
        .map(Role::name)
        .collect(Collectors.joining(", "));
  }

  /** The hidden field of the session's cross-site request token; every POST form carries it. */
  static void csrf(Html h, ConsoleRequest r) {
    h.open("input", "type", "hidden", "name", "csrf", "value", r.session().csrfToken());
  }

  /** A labelled text input, with an optional hint tied to it by {@code aria-describedby}. */
  static void field(
      Html h, String id, String label, String name, String value, boolean required, String hint) {
    h.raw("<div class=\"field\">").element("label", label, "for", id);
    h.open(
        "input",
        "id",
        id,
        "name",
        name,
        "type",
        "text",
        "value",
        value,
        "required",
        required ? "" : null,
        "aria-describedby",
        hint == null ? null : id + "-hint");
    if (hint != null) {
      h.element("p", hint, "id", id + "-hint", "class", "hint");
    }
    h.raw("</div>");
  }

  /** The optional reason recorded with the change in the audit trail. */
  static void reason(Html h, String id) {
    field(
        h,
        id,
        "Reason (optional)",
        ConsoleRequest.REASON,
        "",
        false,
        "Recorded in the audit trail with the change; at most 256 characters.");
  }

  static void submit(Html h, String label) {
    h.element("button", label, "type", "submit");
  }

  /** An instant as {@code 2026-03-01 12:00:00 UTC}. */
  static String time(Instant at) {
    return TIME.format(at);
  }
}
