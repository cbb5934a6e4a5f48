package dev.veil.client;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every operation of the admin API, with the {@link Role} it needs and whether it changes anything.
 * The one table of operator permissions: the admin gRPC API checks a call's method against it
 * before the call runs, and so does every other admin surface, so each operation has the same rule
 * wherever it is asked for. An operation missing from this table is open to {@link Role#ADMIN}
 * alone.
 */
public enum AdminAction {
  CREATE_CLIENT("CreateClient", Role.CLIENT_ADMIN, true),
  LIST_CLIENTS("ListClients", Role.CLIENT_ADMIN, false),
  SET_CLIENT_ENABLED("SetClientEnabled", Role.CLIENT_ADMIN, true),
  ROTATE_CLIENT_KEY("RotateClientKey", Role.CLIENT_ADMIN, true),
  ROTATE_CLIENT_SECRET("RotateClientSecret", Role.CLIENT_ADMIN, true),
  LIST_KEYS("ListKeys", Role.KEY_ADMIN, false),
  ROTATE_KEYS("RotateKeys", Role.KEY_ADMIN, true),
  ROTATE_SALTS("RotateSalts", Role.KEY_ADMIN, true),
  GET_SALT_STATUS("GetSaltStatus", Role.KEY_ADMIN, false),
  RECORD_OPT_OUT("RecordOptOut", Role.OPTOUT_ADMIN, true),
  LOOKUP_OPT_OUT("LookupOptOut", Role.OPTOUT_ADMIN, false),
  LIST_SITES("ListSites", Role.SHARING_ADMIN, false),
  UPDATE_SITE("UpdateSite", Role.SHARING_ADMIN, true),
  SET_SITE_SHARING("SetSiteSharing", Role.SHARING_ADMIN, true),
  REGISTER_WEBHOOK("RegisterWebhook", Role.SHARING_ADMIN, true),
  LIST_WEBHOOKS("ListWebhooks", Role.SHARING_ADMIN, false),
  DELETE_WEBHOOK("DeleteWebhook", Role.SHARING_ADMIN, true),
  LIST_AUDIT_EVENTS("ListAuditEvents", Role.AUDIT_READER, false),
  GET_DEDUCTION_LIST("GetDeductionList", Role.DEDUCTION_READER, false),
  GET_EXPIRED_DEDUCTION_LIST("GetExpiredDeductionList", Role.DEDUCTION_READER, false),
  GET_DEDUCTION("GetDeduction", Role.DEDUCTION_READER, false),
  LIST_DEDUCTIONS("ListDeductions", Role.DEDUCTION_READER, false),
  GET_DEDUCTION_HISTORY("GetDeductionHistory", Role.DEDUCTION_READER, false),
  WATCH_DEDUCTIONS("WatchDeductions", Role.DEDUCTION_READER, false),
  CREATE_DEDUCTION("CreateDeduction", Role.DEDUCTION_WRITER, true),
  OPEN_DEDUCTION("OpenDeduction", Role.DEDUCTION_WRITER, true),
  CLOSE_DEDUCTION("CloseDeduction", Role.DEDUCTION_WRITER, true);

  private static final Map<String, AdminAction> BY_METHOD =
      Stream.of(values()).collect(Collectors.toUnmodifiableMap(a -> a.method, Function.identity()));

  private final String method;
  private final Role role;
  private final boolean mutation;

  AdminAction(String method, Role role, boolean mutation) {
    this.method = method;
    this.role = role;
    this.mutation = mutation;
  }

  /** The gRPC method's name (without its service), e.g. {@code CreateClient}. */
  public String method() {
    return method;
  }

  /** The role a caller needs (or {@link Role#ADMIN}, which holds every operator role). */
  public Role role() {
    return role;
  }

  /** Whether the operation changes state (and is recorded in the audit trail). */
  public boolean mutation() {
    return mutation;
  }

  /** The operation of a gRPC method name (without its service), if there is one. */
  public static Optional<AdminAction> ofMethod(String method) {
    return Optional.ofNullable(BY_METHOD.get(method));
  }

  /**
   * Whether {@code caller} may perform this operation: an enabled client that holds its role.
   *
   * @see ApiClient#has
   */
  public boolean allows(ApiClient caller) {
    return caller.has(role);
  }

  /** The refusal's text for a caller without the role. */
  public String deniedMessage() {
    return method + " needs the " + role + " role (or ADMIN), which the API key does not have";
  }
}
