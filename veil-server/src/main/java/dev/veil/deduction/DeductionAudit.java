package dev.veil.deduction;

import dev.veil.audit.AuditDetails;

/**
 * What the audit trail records of a deduction change, the same whichever admin surface (gRPC or the
 * console) asked for it: the action's name and the details, a JSON object.
 */
public final class DeductionAudit {
  public static final String CREATE = "CreateDeduction";
  public static final String OPEN = "OpenDeduction";
  public static final String CLOSE = "CloseDeduction";

  private DeductionAudit() {}

  /** The target of a change to record {@code id}. */
  public static String target(long id) {
    return "deduction " + id;
  }

  /** A create: its title, pay method id and window end ({@code validUntilMs}, 0: none). */
  public static String created(String title, long payMethodId, long validUntilMs) {
    return withWindow(
        AuditDetails.of().put("title", title).put("pay_method_id", payMethodId), validUntilMs);
  }

  /** An open, with the new window end it sets ({@code validUntilMs}, 0: none given). */
  public static String opened(long validUntilMs) {
    return withWindow(AuditDetails.of().put("status", "NORMAL"), validUntilMs);
  }

  /** A close by hand. */
  public static String closed() {
    return AuditDetails.of().put("status", "EXPIRED").put("close_reason", "MANUAL").json();
  }

  /** A close by the expiry job. */
  static String expired() {
    return AuditDetails.of().put("status", "EXPIRED").put("close_reason", "SCHEDULED").json();
  }

  private static String withWindow(AuditDetails details, long validUntilMs) {
    if (validUntilMs != 0) {
      details.put("valid_until_ms", validUntilMs);
    }
    return details.json();
  }
}
