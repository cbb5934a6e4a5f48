package dev.veil.console;

import dev.veil.audit.AuditDetails;
import dev.veil.client.AdminAction;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionResult;
import dev.veil.deduction.DeductionService;
import dev.veil.deduction.DeductionStatus;
import java.util.function.Supplier;

/**
 * Deductions: the list by status ({@code /deductions?status=normal|expired}, a page at a time), one
 * deduction ({@code /deductions/{id}}, read with {@code get}) with its open or close, and the
 * create form. Each is the {@link DeductionService} call of the {@code DeductionAdminApi} method of
 * the same name and needs that method's role; changes are recorded in the audit trail with the same
 * action, target and details as there, and a change the service refuses (its code) gets no record.
 * A refusal in a result's code becomes a page: 2 not found (404), 4 bad input (400), 1 and 3 the
 * store (503).
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

  /** The list's action: which status it shows. */
  static AdminAction listAction(ConsoleRequest r) {
    return status(r.query()) == DeductionStatus.EXPIRED
        ? AdminAction.GET_EXPIRED_DEDUCTION_LIST
        : AdminAction.GET_DEDUCTION_LIST;
  }

  ConsoleResponse list(ConsoleRequest r) {
    DeductionStatus status = status(r.query());
    String token = r.query().text("page");
    DeductionResult page = checked(api.deductions().list(status, PAGE_SIZE, token));
    Html h = new Html();
    h.open("form", "method", "get", "action", SECTION, "class", "filters");
    h.raw("<div class=\"field\"><label for=\"status\">Status</label>");
    h.open("select", "id", "status", "name", "status");
    option(h, "normal", "Open (NORMAL)", status == DeductionStatus.NORMAL);
    option(h, "expired", "Closed (EXPIRED)", status == DeductionStatus.EXPIRED);
    h.raw("</select></div>");
    Layout.submit(h, "Show");
    h.raw("</form>");
    String what = status == DeductionStatus.NORMAL ? "Open" : "Closed";
    h.raw("<table><caption>")
        .text(what + " deductions, by id")
        .raw("</caption>")
        .raw("<thead><tr><th scope=\"col\">ID</th><th scope=\"col\">Title</th>")
        .raw("<th scope=\"col\">Pay method</th><th scope=\"col\">Status</th>")
        .raw("<th scope=\"col\">Created</th><th scope=\"col\">Changed</th></tr></thead><tbody>");
    for (Deduction d : page.records()) {
      h.raw("<tr>").element("td", d.id());
      h.raw("<td>").element("a", d.title(), "href", SECTION + "/" + d.id()).raw("</td>");
      h.element("td", d.payMethodId()).element("td", d.status().name());
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
                  + status.name().toLowerCase(java.util.Locale.ROOT)
                  + "&page="
                  + java.net.URLEncoder.encode(
                      page.nextPageToken(), java.nio.charset.StandardCharsets.UTF_8))
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
    h.element("dt", "Status").element("dd", d.status().name());
    h.element("dt", "Created").element("dd", Layout.time(d.created()));
    h.element("dt", "Changed").element("dd", Layout.time(d.updated()));
    h.raw("</dl>");
    boolean open = d.status() == DeductionStatus.NORMAL;
    String verb = open ? "close" : "open";
    h.open(
        "form", "method", "post", "action", SECTION + "/" + d.id() + "/" + verb, "class", "card");
    h.element("h2", open ? "Close this deduction" : "Reopen this deduction");
    Layout.csrf(h, r);
    Layout.reason(h, verb + "-reason");
    Layout.submit(h, open ? "Close deduction" : "Open deduction");
    h.raw("</form>");
    return ConsoleResponse.page(200, Layout.page("Deduction " + d.id(), SECTION, r, h));
  }

  ConsoleResponse create(ConsoleRequest r) {
    long payMethod = r.form().number("pay_method_id", "Pay method id", 0, Deduction.MAX_ID, -1);
    if (payMethod < 0) {
      throw VeilException.clientError("Pay method id is required");
    }
    String title = r.form().text("title");
    DeductionResult created =
        checked(
            api.audit()
                .recordCreation(
                    r.actor(),
                    "CreateDeduction",
                    "deduction",
                    AuditDetails.of().put("title", title).put("pay_method_id", payMethod).json(),
                    () ->
                        api.deductions()
                            .create(
                                title,
                                r.form().text("desc"),
                                payMethod,
                                r.form().text("request_id")),
                    DeductionResult::success));
    long id = created.records().get(0).id();
    r.session().notice("Deduction " + id + " was created.");
    return ConsoleResponse.redirect(SECTION + "/" + id);
  }

  ConsoleResponse open(ConsoleRequest r) {
    return setStatus(r, "OpenDeduction", "NORMAL", () -> api.deductions().open(r.id()), "opened");
  }

  ConsoleResponse close(ConsoleRequest r) {
    return setStatus(
        r, "CloseDeduction", "EXPIRED", () -> api.deductions().close(r.id()), "closed");
  }

  private ConsoleResponse setStatus(
      ConsoleRequest r,
      String action,
      String status,
      Supplier<DeductionResult> change,
      String done) {
    checked(
        api.audit()
            .record(
                r.actor(),
                action,
                "deduction " + r.id(),
                AuditDetails.of().put("status", status).json(),
                change,
                DeductionResult::success));
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
