package dev.veil.console;

import dev.veil.client.AdminAction;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.deduction.CloseReason;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionAudit;
import dev.veil.deduction.DeductionCode;
import dev.veil.deduction.DeductionEvent;
import dev.veil.deduction.DeductionFilter;
import dev.veil.deduction.DeductionResult;
import dev.veil.deduction.DeductionService;
import dev.veil.deduction.DeductionStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Deductions: the list ({@code /deductions?status=normal|expired|any}, filtered by pay method ids
 * and a creation time range, a page at a time), one deduction ({@code /deductions/{id}}, read with
 * {@code get}) with its history, its open or close (made only if it is still at the version the
 * page showed: a change made meanwhile is a 409 page), and the create form. Each is the {@link
 * DeductionService} call of the {@code DeductionAdminApi} method of the same name and needs that
 * method's role; changes are recorded in the audit trail with the same action, target and details
 * as there, and a change the service refuses (its code) gets no record. A refusal in a result's
 * code becomes a page: 2 not found (404), 4 bad input (400), 1 and 3 the store (503).
 */
final class DeductionPages {
  static final String SECTION = "/deductions";
  static final long PAGE_SIZE = 50;

  private final ConsoleApi api;
  private final Sessions sessions;

  DeductionPages(ConsoleApi api, Sessions sessions) {
    this.api = api;
    this.sessions = sessions;
  }

  /**
   * The list's action: the request's list of one status, or {@code ListDeductions} when the page
   * asks for any status or filters by pay method or creation time.
   */
  static AdminAction listAction(ConsoleRequest r) {
    Form q = r.query();
    if (filtered(q) || q.text("status").equals("any")) {
      return AdminAction.LIST_DEDUCTIONS;
    }
    return status(q) == DeductionStatus.EXPIRED
        ? AdminAction.GET_EXPIRED_DEDUCTION_LIST
        : AdminAction.GET_DEDUCTION_LIST;
  }

  private static boolean filtered(Form q) {
    return !q.text("pay_method_id").isBlank()
        || !q.text("created_from").isBlank()
        || !q.text("created_before").isBlank();
  }

  ConsoleResponse list(ConsoleRequest r) {
    Form q = r.query();
    boolean any = q.text("status").equals("any");
    DeductionStatus status = status(q);
    DeductionFilter filter =
        new DeductionFilter(
            any ? EnumSet.noneOf(DeductionStatus.class) : EnumSet.of(status),
            payMethodIds(q.text("pay_method_id")),
            Optional.ofNullable(AuditPages.time(q.text("created_from"), "Created from")),
            Optional.ofNullable(AuditPages.time(q.text("created_before"), "Created before")));
    String token = q.text("page");
    DeductionResult page = checked(api.deductions().list(filter, PAGE_SIZE, token));
    Html h = new Html();
    h.open("form", "method", "get", "action", SECTION, "class", "filters");
    h.raw("<div class=\"field\"><label for=\"status\">Status</label>");
    h.open("select", "id", "status", "name", "status");
    option(h, "normal", "Open (NORMAL)", !any && status == DeductionStatus.NORMAL);
    option(h, "expired", "Closed (EXPIRED)", !any && status == DeductionStatus.EXPIRED);
    option(h, "any", "Any status", any);
    h.raw("</select></div>");
    Layout.field(
        h,
        "pay-method-filter",
        "Pay method ids",
        "pay_method_id",
        q.text("pay_method_id"),
        false,
        "Comma-separated; empty: any.");
    Layout.field(
        h,
        "created-from",
        "Created from",
        "created_from",
        q.text("created_from"),
        false,
        "A UTC date (2026-03-01) or time (2026-03-01T12:00:00Z), inclusive.");
    Layout.field(
        h,
        "created-before",
        "Created before",
        "created_before",
        q.text("created_before"),
        false,
        "Exclusive.");
    Layout.submit(h, "Show");
    h.raw("</form>");
    String what = any ? "All" : status == DeductionStatus.NORMAL ? "Open" : "Closed";
    h.raw("<table><caption>")
        .text(what + " deductions, by id")
        .raw("</caption>")
        .raw("<thead><tr><th scope=\"col\">ID</th><th scope=\"col\">Title</th>")
        .raw("<th scope=\"col\">Pay method</th><th scope=\"col\">Status</th>")
        .raw("<th scope=\"col\">Version</th><th scope=\"col\">Valid until</th>")
        .raw("<th scope=\"col\">Created</th><th scope=\"col\">Changed</th></tr></thead><tbody>");
    for (Deduction d : page.records()) {
      h.raw("<tr>").element("td", d.id());
      h.raw("<td>").element("a", d.title(), "href", SECTION + "/" + d.id()).raw("</td>");
      h.element("td", d.payMethodId()).element("td", statusText(d));
      h.element("td", d.version()).element("td", window(d));
      h.element("td", Layout.time(d.created())).element("td", Layout.time(d.updated()));
      h.raw("</tr>");
    }
    h.raw("</tbody></table>");
    if (page.records().isEmpty()) {
      h.element("p", "None.");
    }
    if (!page.nextPageToken().isEmpty()) {
      h.raw("<p>")
          .element(
              "a",
              "Next page",
              "href",
              SECTION
                  + "?status="
                  + (any ? "any" : status.name().toLowerCase(Locale.ROOT))
                  + param(q, "pay_method_id")
                  + param(q, "created_from")
                  + param(q, "created_before")
                  + "&page="
                  + URLEncoder.encode(page.nextPageToken(), StandardCharsets.UTF_8))
          .raw("</p>");
    }
    createForm(h, r);
    return ConsoleResponse.page(200, Layout.page("Deductions", SECTION, r, h));
  }

  private void createForm(Html h, ConsoleRequest r) {
    h.raw("<section aria-labelledby=\"create\"><h2 id=\"create\">Create a deduction</h2>");
    h.open("form", "method", "post", "action", SECTION, "class", "card");
    Layout.csrf(h, r);
    // The request id makes the create idempotent: the same form sent twice makes one deduction.
    h.open("input", "type", "hidden", "name", "request_id", "value", sessions.randomToken());
    Layout.field(h, "title", "Title", "title", "", true, "1 to 128 characters.");
    h.raw("<div class=\"field\"><label for=\"desc\">Description (optional)</label>");
    h.raw("<textarea id=\"desc\" name=\"desc\" rows=\"3\"></textarea></div>");
    Layout.field(h, "pay-method", "Pay method id", "pay_method_id", "", true, null);
    Layout.field(
        h,
        "valid-until",
        "Valid until (optional)",
        "valid_until",
        "",
        false,
        "A UTC date or time in the future; the deduction closes by itself then.");
    Layout.reason(h, "create-reason");
    Layout.submit(h, "Create deduction");
    h.raw("</form></section>");
  }

  ConsoleResponse show(ConsoleRequest r) {
    Deduction d = checked(api.deductions().get(r.id())).records().get(0);
    Html h = new Html().raw("<dl>");
    h.element("dt", "ID").element("dd", d.id());
    h.element("dt", "Title").element("dd", d.title());
    h.element("dt", "Description").element("dd", d.desc().isEmpty() ? "(none)" : d.desc());
    h.element("dt", "Pay method").element("dd", d.payMethodId());
    h.element("dt", "Status").element("dd", statusText(d));
    h.element("dt", "Version").element("dd", d.version());
    h.element("dt", "Valid until").element("dd", window(d));
    h.element("dt", "Created").element("dd", Layout.time(d.created()));
    h.element("dt", "Changed").element("dd", Layout.time(d.updated()));
    h.raw("</dl>");
    boolean open = d.status() == DeductionStatus.NORMAL;
    String verb = open ? "close" : "open";
    h.open(
        "form", "method", "post", "action", SECTION + "/" + d.id() + "/" + verb, "class", "card");
    h.element("h2", open ? "Close this deduction" : "Reopen this deduction");
    Layout.csrf(h, r);
    // The change is made only to the version shown here: one made meanwhile is refused.
    h.open("input", "type", "hidden", "name", "expected_version", "value", "" + d.version());
    if (!open) {
      Layout.field(
          h,
          verb + "-valid-until",
          "New end of validity (optional)",
          "valid_until",
          "",
          false,
          "A UTC date or time in the future; needed if its validity window has ended.");
    }
    Layout.reason(h, verb + "-reason");
    Layout.submit(h, open ? "Close deduction" : "Open deduction");
    h.raw("</form>");
    if (r.caller().has(AdminAction.GET_DEDUCTION_HISTORY.role())) {
      history(h, api.deductions().history(d.id()));
    }
    return ConsoleResponse.page(200, Layout.page("Deduction " + d.id(), SECTION, r, h));
  }

  private static void history(Html h, DeductionResult history) {
    h.raw("<section aria-labelledby=\"history\"><h2 id=\"history\">History</h2>");
    if (!history.success()) {
      h.element("p", "The history cannot be read now: " + history.message() + ".", "role", "alert");
      h.raw("</section>");
      return;
    }
    h.raw("<table><caption>Every change, oldest first</caption>")
        .raw("<thead><tr><th scope=\"col\">Time</th><th scope=\"col\">Change</th>")
        .raw("<th scope=\"col\">Status</th><th scope=\"col\">Version</th>")
        .raw("<th scope=\"col\">Valid until</th><th scope=\"col\">By</th></tr></thead><tbody>");
    for (DeductionEvent e : history.events()) {
      h.raw("<tr>").element("td", Layout.time(e.at())).element("td", e.kind().name());
      h.element("td", statusText(e.deduction())).element("td", e.deduction().version());
      h.element("td", window(e.deduction()));
      h.element("td", e.actor().isEmpty() ? "(before the change log)" : e.actor());
      h.raw("</tr>");
    }
    h.raw("</tbody></table></section>");
  }

  private static String statusText(Deduction d) {
    return d.closeReason() == CloseReason.NONE
        ? d.status().name()
        : d.status().name() + " (" + d.closeReason().name().toLowerCase(Locale.ROOT) + ")";
  }

  private static String window(Deduction d) {
    return d.validUntil().map(Layout::time).orElse("-");
  }

  private static String param(Form q, String name) {
    String value = q.text(name);
    return value.isBlank()
        ? ""
        : "&" + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static Set<Long> payMethodIds(String text) {
    Set<Long> ids = new LinkedHashSet<>();
    for (String part : text.split(",", -1)) {
      String p = part.strip();
      if (p.isEmpty()) {
        continue;
      }
      try {
        ids.add(Long.parseLong(p));
      } catch (NumberFormatException e) {
        throw VeilException.clientError(
            "Pay method ids must be numbers from 0 to " + Deduction.MAX_ID + ", comma-separated");
      }
    }
    return ids;
  }

  /** A form's optional time field as milliseconds since the epoch; 0 when empty. */
  private static long millis(Form form, String name, String label) {
    Instant at = AuditPages.time(form.text(name), label);
    return at == null ? 0 : at.toEpochMilli();
  }

  ConsoleResponse create(ConsoleRequest r) {
    long payMethod = r.form().number("pay_method_id", "Pay method id", 0, Deduction.MAX_ID, -1);
    if (payMethod < 0) {
      throw VeilException.clientError("Pay method id is required");
    }
    String title = r.form().text("title");
    long validUntil = millis(r.form(), "valid_until", "Valid until");
    DeductionResult created =
        checked(
            api.audit()
                .recordCreation(
                    r.actor(),
                    DeductionAudit.CREATE,
                    "deduction",
                    DeductionAudit.created(title, payMethod, validUntil),
                    () ->
                        api.deductions()
                            .create(
                                title,
                                r.form().text("desc"),
                                payMethod,
                                r.form().text("request_id"),
                                validUntil),
                    DeductionResult::success));
    long id = created.records().get(0).id();
    r.session().notice("Deduction " + id + " was created.");
    return ConsoleResponse.redirect(SECTION + "/" + id);
  }

  ConsoleResponse open(ConsoleRequest r) {
    long version = expectedVersion(r);
    long validUntil = millis(r.form(), "valid_until", "New end of validity");
    return setStatus(
        r,
        DeductionAudit.OPEN,
        DeductionAudit.opened(validUntil),
        () -> api.deductions().open(r.id(), version, validUntil),
        "opened");
  }

  ConsoleResponse close(ConsoleRequest r) {
    long version = expectedVersion(r);
    return setStatus(
        r,
        DeductionAudit.CLOSE,
        DeductionAudit.closed(),
        () -> api.deductions().close(r.id(), version),
        "closed");
  }

  /** The version the page showed (0, no check, if the form has none). */
  private static long expectedVersion(ConsoleRequest r) {
    return r.form().number("expected_version", "Version", 0, Long.MAX_VALUE, 0);
  }

  private ConsoleResponse setStatus(
      ConsoleRequest r,
      String action,
      String details,
      Supplier<DeductionResult> change,
      String done) {
    DeductionResult result =
        api.audit()
            .record(
                r.actor(),
                action,
                DeductionAudit.target(r.id()),
                details,
                change,
                DeductionResult::success);
    if (result.code() == DeductionCode.VERSION_CONFLICT) {
      return ConsoleDispatcher.page(
          r,
          409,
          "Changed meanwhile",
          "Deduction "
              + r.id()
              + " was changed after this page showed it ("
              + result.message()
              + "). Nothing was done: look at it again and decide anew.");
    }
    checked(result);
    r.session().notice("Deduction " + r.id() + " was " + done + ".");
    return ConsoleResponse.redirect(SECTION + "/" + r.id());
  }

  /** {@code result} when it succeeded; otherwise its code as a refusal the dispatcher shows. */
  private static DeductionResult checked(DeductionResult result) {
    return switch (result.code()) {
      case SUCCESS -> result;
      case RECORD_NOT_FOUND ->
          throw new VeilException(ErrorCode.NOT_FOUND, "There is no such deduction.");
      case INVALID_ARGUMENT -> throw VeilException.clientError(result.message());
      default -> throw new VeilException(ErrorCode.UNAVAILABLE, result.message());
    };
  }

  private static DeductionStatus status(Form query) {
    return query.text("status").equals("expired")
        ? DeductionStatus.EXPIRED
        : DeductionStatus.NORMAL;
  }

  private static void option(Html h, String value, String label, boolean selected) {
    h.element("option", label, "value", value, "selected", selected ? "" : null);
  }
}
