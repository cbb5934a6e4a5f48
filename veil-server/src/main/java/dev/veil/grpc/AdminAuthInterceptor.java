package dev.veil.grpc;

import dev.veil.audit.AuditLog;
import dev.veil.client.AdminAction;
import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.Role;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Optional;

/**
 * Lets a call through only with {@code authorization: Bearer <key>} metadata naming an enabled
 * client that holds the role its method needs ({@link AdminAction}; {@link Role#ADMIN} holds every
 * operator role). No, malformed, unknown or disabled key: UNAUTHENTICATED; a valid key without the
 * role: PERMISSION_DENIED, naming the role. A method with no rule in {@link AdminAction} is open to
 * {@code ADMIN} alone, so that an RPC added without a rule is closed to the narrower roles. The
 * reflection service ({@code openAnyOperator}) is open to any client with an operator role. The
 * handler runs with the caller in {@link #CALLER}. Checks cost the same whatever the key (see
 * {@link ApiKeyAuthenticator}). Thread-safe.
 */
public final class AdminAuthInterceptor implements ServerInterceptor {
  /** The authenticated admin client of the current call. */
  public static final Context.Key<ApiClient> CALLER = Context.key("veil.admin.caller");

  /** The current call's {@code x-veil-reason}, decoded; empty when none was sent. */
  public static final Context.Key<String> REASON = Context.key("veil.admin.reason");

  static final Metadata.Key<String> REASON_HEADER =
      Metadata.Key.of("x-veil-reason", Metadata.ASCII_STRING_MARSHALLER);

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ApiKeyAuthenticator authenticator;
  private final boolean openToAnyOperator;

  /**
   * @param openToAnyOperator whether every method is open to any client with an operator role (the
   *     reflection service) instead of needing its {@link AdminAction}'s role
   */
  public AdminAuthInterceptor(ApiKeyAuthenticator authenticator, boolean openToAnyOperator) {
    this.authenticator = authenticator;
    this.openToAnyOperator = openToAnyOperator;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    Optional<ApiClient> caller = authenticator.authenticate(headers.get(AUTHORIZATION));
    if (caller.isEmpty()) {
      return refuse(
          call,
          Status.UNAUTHENTICATED.withDescription(
              "missing or unknown API key: send metadata 'authorization: Bearer <admin key>'"));
    }
    if (!caller.get().isOperator()) {
      return refuse(
          call,
          Status.PERMISSION_DENIED.withDescription(
              "the API key has no operator role (ADMIN or one of CLIENT_ADMIN, KEY_ADMIN,"
                  + " OPTOUT_ADMIN, SHARING_ADMIN, DEDUCTION_READER, DEDUCTION_WRITER,"
                  + " AUDIT_READER)"));
    }
    if (!openToAnyOperator) {
      String method =
          MethodDescriptor.extractBareMethodName(call.getMethodDescriptor().getFullMethodName());
      Optional<AdminAction> action = AdminAction.ofMethod(method);
      if (action.isEmpty() && !caller.get().has(Role.ADMIN)) {
        return refuse(
            call,
            Status.PERMISSION_DENIED.withDescription(
                method + " needs the ADMIN role, which the API key does not have"));
      }
      if (action.isPresent() && !action.get().allows(caller.get())) {
        return refuse(call, Status.PERMISSION_DENIED.withDescription(action.get().deniedMessage()));
      }
    }
    String reason;
    try {
      reason = AuditReason.decode(headers.get(REASON_HEADER));
    } catch (IllegalArgumentException e) {
      return refuse(call, Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
    }
    Context context = Context.current().withValue(CALLER, caller.get()).withValue(REASON, reason);
    return Contexts.interceptCall(context, call, headers, next);
  }

  /** The current call's client and reason, for its audit record. */
  static AuditLog.Actor actor() {
    ApiClient caller = CALLER.get();
    String reason = REASON.get();
    return new AuditLog.Actor(caller.id(), caller.name(), reason == null ? "" : reason);
  }

  private static <ReqT, RespT> ServerCall.Listener<ReqT> refuse(
      ServerCall<ReqT, RespT> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<>() {};
  }
}
