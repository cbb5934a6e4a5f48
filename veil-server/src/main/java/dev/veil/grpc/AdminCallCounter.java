package dev.veil.grpc;

import dev.veil.observability.Counter;
import dev.veil.observability.CounterFamily;
import dev.veil.observability.Metrics;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Counts admin calls by method and status code: {@code
 * veil_admin_grpc_calls_total{method=…,code=…}}, {@code method} the full gRPC method name ({@code
 * protocol.identity.admin.v1.IdentityAdminApi/ListClients}), {@code code} the status code's name
 * ({@code OK}, {@code UNAUTHENTICATED}, …).
 *
 * <p>It runs first, before the key check, so refused calls are counted too. A call counts once,
 * with the status it is closed with, or {@code CANCELLED} when the client cancels it (or its
 * deadline passes) before it is closed. Methods come from the services given at wiring time, so the
 * label values are a fixed set; a call to another method (there is none: the interceptor is only
 * attached to these services) is not counted. Thread-safe.
 */
final class AdminCallCounter implements ServerInterceptor {
  private final CounterFamily calls;

  /**
   * Per full method name, the counter of each status code (by code value), resolved on first use.
   */
  private final Map<String, AtomicReferenceArray<Counter>> byMethod = new HashMap<>();

  AdminCallCounter(Metrics metrics, List<ServerServiceDefinition> services) {
    this.calls =
        metrics.counterFamily(
            "veil_admin_grpc_calls_total",
            "Admin gRPC calls by method and status code.",
            "method",
            "code");
    for (ServerServiceDefinition service : services) {
      for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
        byMethod.put(
            method.getMethodDescriptor().getFullMethodName(),
            new AtomicReferenceArray<>(Status.Code.values().length));
      }
    }
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    AtomicReferenceArray<Counter> byCode = byMethod.get(method);
    if (byCode == null) {
      return next.startCall(call, headers);
    }
    AtomicBoolean counted = new AtomicBoolean();
    ServerCall<ReqT, RespT> counting =
        new SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            if (counted.compareAndSet(false, true)) {
              counter(method, byCode, status.getCode()).inc();
            }
            super.close(status, trailers);
          }
        };
    return new SimpleForwardingServerCallListener<>(next.startCall(counting, headers)) {
      @Override
      public void onCancel() {
        if (counted.compareAndSet(false, true)) {
          counter(method, byCode, Status.Code.CANCELLED).inc();
        }
        super.onCancel();
      }
    };
  }

  private Counter counter(String method, AtomicReferenceArray<Counter> byCode, Status.Code code) {
    Counter counter = byCode.get(code.value());
    if (counter == null) {
      counter = calls.labels(method, code.name()); // the same member if two threads race here
      byCode.set(code.value(), counter);
    }
    return counter;
  }
}
