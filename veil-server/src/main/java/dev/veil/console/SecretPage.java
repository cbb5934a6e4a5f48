package dev.veil.console;

import java.util.Map;

/**
 * The answer of a form that made a key or secret: the only page that ever shows it. The console
 * keeps no copy; the page is not cached ({@code Cache-Control: no-store}), its script blanks the
 * values when the page is left (so the back button shows no secret either), and the form's
 * single-use token ({@link ConsoleRequest#openForm}) makes a reload refuse rather than answer
 * again.
 */
final class SecretPage {
  /** The hidden field of a form's single-use token. */
  static final String ONCE = "once";

  private SecretPage() {}

  /** Adds the single-use token of a form whose answer shows a secret. */
  static void once(Html h, ConsoleRequest r, Sessions sessions) {
    h.open("input", "type", "hidden", "name", ONCE, "value", r.openForm(sessions));
  }

  /** Null when the form's single-use token is good (and now used), else the page that says so. */
  static ConsoleResponse refuseRepeat(ConsoleRequest r, String section) {
    if (r.session().sendForm(r.form().text(ONCE))) {
      return null;
    }
    Html h = new Html();
    h.element(
        "p",
        "This form was already sent, so it was not carried out again. A key or secret is shown"
            + " only once, on the page that answered the form; if it was lost, rotate it to get a"
            + " new one.",
        "class",
        "error",
        "role",
        "alert");
    h.raw("<p>").element("a", "Back", "href", section).raw("</p>");
    return ConsoleResponse.page(409, Layout.page("Already sent", section, r, h));
  }

  /** The page: {@code intro}, then each labelled value with a copy button, then a way back. */
  static ConsoleResponse show(
      String title, String section, ConsoleRequest r, Html intro, Map<String, String> values) {
    Html h = new Html().append(intro);
    h.element(
        "p",
        "Copy it now: it is shown only on this page, and the console keeps no copy.",
        "class",
        "warning");
    h.raw("<dl class=\"secrets\">");
    int n = 0;
    for (Map.Entry<String, String> value : values.entrySet()) {
      String id = "secret-" + ++n;
      h.element("dt", value.getKey(), "id", id + "-label");
      h.raw("<dd>").element("code", value.getValue(), "id", id, "data-secret", "");
      h.open("button", "type", "button", "class", "copy", "data-copy", id, "hidden", "");
      h.text("Copy").raw("<span class=\"vh\"> ").text(value.getKey()).raw("</span></button></dd>");
    }
    h.raw("</dl><p id=\"copy-status\" class=\"hint\" role=\"status\" aria-live=\"polite\"></p>");
    h.raw("<p>").element("a", "Done", "href", section).raw("</p>");
    return ConsoleResponse.page(200, Layout.page(title, section, r, h));
  }
}
