package dev.veil.grpc;

import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.Role;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Optional;

/**
 * Lets a call through only with {@code authorization: Bearer <key>} metadata naming an enabled
 * client with the {@link Role#ADMIN} role (docs/spec.md 6). No, malformed, unknown or disabled key:
 * UNAUTHENTICATED; a valid key without the role: PERMISSION_DENIED. The handler runs with the
 * caller in {@link #CALLER}. Checks cost the same whatever the key (see {@link
 * ApiKeyAuthenticator}). Thread-safe.
 */
public final class AdminAuthInterceptor implements ServerInterceptor {
  /** The authenticated admin client of the current call. */
  public static final Context.Key<ApiClient> CALLER = Context.key("veil.admin.caller");

  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ApiKeyAuthenticator authenticator;

  public AdminAuthInterceptor(ApiKeyAuthenticator authenticator) {
    this.authenticator = authenticator;
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
    if (!caller.get().has(Role.ADMIN)) {
      return refuse(
          call,
          Status.PERMISSION_DENIED.withDescription("the API key does not have the ADMIN role"));
    }
    Context context = Context.current().withValue(CALLER, caller.get());
    return Contexts.interceptCall(context, call, headers, next);
  }

  private static <ReqT, RespT> ServerCall.Listener<ReqT> refuse(
      ServerCall<ReqT, RespT> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<>() {};
  }
}
