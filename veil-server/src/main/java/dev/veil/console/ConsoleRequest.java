package dev.veil.console;

import dev.veil.audit.AuditLog;
import dev.veil.client.ApiClient;
import dev.veil.common.VeilException;

/**
 * A request of a signed-in client, as a page handler sees it: the path's id (or -1), the query, the
 * form of a POST, the session and the client it acts as (read from the node's client registry for
 * this request, so a change of roles counts at once). Immutable apart from the session.
 */
record ConsoleRequest(long id, Form query, Form form, Session session, ApiClient caller) {
  /** The form field that carries the optional reason recorded in the audit trail. */
  static final String REASON = "reason";

  /**
   * Who is acting, for the audit trail: the signed-in client and the form's reason.
   *
   * @throws VeilException CLIENT_ERROR for a reason the audit trail does not accept
   */
  AuditLog.Actor actor() {
    String reason;
    try {
      reason = AuditLog.checkedReason(form.text(REASON));
    } catch (IllegalArgumentException e) {
      throw VeilException.clientError("reason: " + e.getMessage());
    }
    return new AuditLog.Actor(caller.id(), caller.name(), reason);
  }

  /**
   * A token for a form that shows a secret in its answer: the answer is given once, and the same
   * form sent again (a reload, the back button) is refused instead of making another secret.
   */
  String openForm(Sessions sessions) {
    String token = sessions.randomToken();
    session.openForm(token);
    return token;
  }
}
