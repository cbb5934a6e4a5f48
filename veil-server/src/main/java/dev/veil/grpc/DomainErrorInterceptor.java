package dev.veil.grpc;

import dev.veil.common.StoreUnavailableException;
import dev.veil.common.VeilException;
import dev.veil.core.identity.InvalidIdentifierException;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where domain exceptions become gRPC status codes. Service implementations throw
 * ({@link VeilException}, {@link StoreUnavailableException}, {@link InvalidIdentifierException});
 * this interceptor catches what escapes a handler and closes the call with {@link #statusOf}.
 *
 * <p>Descriptions are safe to show: domain messages never hold input data, a store outage is
 * reported without its cause, and an unexpected fault only as "internal error" (logged with its
 * type and origin, not its message, which might hold input). Thread-safe.
 */
public final class DomainErrorInterceptor implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(DomainErrorInterceptor.class);

  /** The status a call fails with when its handler throws {@code error}. */
  public static Status statusOf(Throwable error) {
    if (error instanceof VeilException e) {
      return codeOf(e).withDescription(e.getMessage());
    }
    if (error instanceof StoreUnavailableException) {
      return Status.UNAVAILABLE.withDescription(
          "storage unavailable, nothing was changed; retry later");
    }
    if (error instanceof InvalidIdentifierException e) {
      return Status.INVALID_ARGUMENT.withDescription(e.getMessage());
    }
    return Status.INTERNAL.withDescription("internal error");
  }

  private static Status codeOf(VeilException e) {
    return switch (e.code()) {
      case CLIENT_ERROR, INVALID_TOKEN, EXPIRED_TOKEN, REFRESH_ERROR -> Status.INVALID_ARGUMENT;
      case NOT_FOUND -> Status.NOT_FOUND;
      case UNAUTHORIZED -> Status.PERMISSION_DENIED;
      case PAYLOAD_TOO_LARGE, RATE_LIMITED -> Status.RESOURCE_EXHAUSTED;
      case UNAVAILABLE -> Status.UNAVAILABLE;
      case INTERNAL -> Status.INTERNAL;
    };
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    OnceClosingCall<ReqT, RespT> guarded = new OnceClosingCall<>(call);
    ServerCall.Listener<ReqT> listener;
    try {
      listener = next.startCall(guarded, headers);
    } catch (RuntimeException e) {
      guarded.fail(call.getMethodDescriptor().getFullMethodName(), e);
      return new ServerCall.Listener<>() {};
    }
    return new SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onMessage(ReqT message) {
        try {
          super.onMessage(message);
        } catch (RuntimeException e) {
          guarded.fail(call.getMethodDescriptor().getFullMethodName(), e);
        }
      }

      @Override
      public void onHalfClose() {
        try {
          super.onHalfClose();
        } catch (RuntimeException e) {
          guarded.fail(call.getMethodDescriptor().getFullMethodName(), e);
        }
      }
    };
  }

  /** Remembers whether the call was closed, so a late failure cannot close it twice. */
  private static final class OnceClosingCall<ReqT, RespT>
      extends SimpleForwardingServerCall<ReqT, RespT> {
    private boolean closed;

    OnceClosingCall(ServerCall<ReqT, RespT> delegate) {
      super(delegate);
    }

    @Override
    public synchronized void close(Status status, Metadata trailers) {
      if (!closed) {
        closed = true;
        super.close(status, trailers);
      }
    }

    void fail(String method, RuntimeException error) {
      Status status = statusOf(error);
      if (status.getCode() == Status.Code.INTERNAL) {
        StackTraceElement origin =
            error.getStackTrace().length > 0 ? error.getStackTrace()[0] : null;
        LOG.error(
            "event=admin_rpc_failed method={} error={} at={}",
            method,
            error.getClass().getName(),
            origin);
      } else if (error instanceof StoreUnavailableException) {
        // The message names the operation, the store and the database's error class, never input.
        LOG.warn("event=store_unavailable method={} detail=\"{}\"", method, error.getMessage());
      }
      close(status, new Metadata());
    }
  }
}
