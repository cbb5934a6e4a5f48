package dev.veil.grpc;

import com.google.protobuf.Message;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.Marshaller;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers a request whose bytes are not a valid message of the method's type with {@code
 * INVALID_ARGUMENT} (docs/spec.md 11: malformed input gets a documented client error), and a
 * compressed request that inflates past the message size limit with {@code RESOURCE_EXHAUSTED}, as
 * an uncompressed one gets.
 *
 * <p>Design note. grpc-java parses a request before any interceptor sees it, and a marshaller that
 * throws makes the call fail with {@code UNKNOWN} ("Application error processing RPC", logged as an
 * error). A compressed message is inflated only while it is parsed, so its size limit is enforced
 * there too, by a {@code RESOURCE_EXHAUSTED} exception out of the parse. So the guard replaces each
 * method's request marshaller with one that, when parsing fails either way, returns one of two
 * per-method <em>poison</em> instances (messages built for the purpose and compared by identity, so
 * no request a client can send is ever taken for one); the call handler, wrapped here too, sees the
 * poison before the service does, closes the call with the poison's status and drops the rest of
 * the call's events. The description names the method, never the bytes. Stateless and thread-safe;
 * each call gets its own listener.
 */
final class MalformedRequestGuard {
  private MalformedRequestGuard() {}

  /**
   * The same service with every protobuf method guarded; methods with other request marshallers are
   * kept as they are.
   */
  static ServerServiceDefinition guard(ServerServiceDefinition service) {
    ServiceDescriptor old = service.getServiceDescriptor();
    ServiceDescriptor.Builder descriptor =
        ServiceDescriptor.newBuilder(old.getName()).setSchemaDescriptor(old.getSchemaDescriptor());
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
      ServerMethodDefinition<?, ?> guarded = guardMethod(method);
      descriptor.addMethod(guarded.getMethodDescriptor());
      methods.add(guarded);
    }
    ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(descriptor.build());
    methods.forEach(out::addMethod);
    return out.build();
  }

  /**
   * A fresh instance of a protobuf request type, distinct from anything a parse returns, or null
   * when the marshaller is not a protobuf one.
   */
  @SuppressWarnings("unchecked")
  private static <T> T poisonFor(Marshaller<T> marshaller) {
    if (marshaller instanceof MethodDescriptor.PrototypeMarshaller<T> proto
        && proto.getMessagePrototype() instanceof Message prototype) {
      Message poison = prototype.newBuilderForType().buildPartial();
      if (poison == prototype) {
        throw new IllegalStateException("protobuf returned its default instance for a new message");
      }
      return (T) poison;
    }
    return null;
  }

  private static <ReqT, RespT> ServerMethodDefinition<ReqT, RespT> guardMethod(
      ServerMethodDefinition<ReqT, RespT> method) {
    MethodDescriptor<ReqT, RespT> descriptor = method.getMethodDescriptor();
    ReqT malformed = poisonFor(descriptor.getRequestMarshaller());
    ReqT tooLarge = poisonFor(descriptor.getRequestMarshaller());
    if (malformed == null) {
      return method;
    }
    if (tooLarge == malformed) {
      throw new IllegalStateException("protobuf returned the same instance for two new messages");
    }
    Marshaller<ReqT> tolerant =
        new TolerantMarshaller<>(descriptor.getRequestMarshaller(), malformed, tooLarge);
    MethodDescriptor<ReqT, RespT> guardedDescriptor =
        descriptor.toBuilder(tolerant, descriptor.getResponseMarshaller()).build();
    Poisons<ReqT> poisons =
        new Poisons<>(
            malformed,
                Status.INVALID_ARGUMENT.withDescription(
                    "the request is not a valid " + descriptor.getFullMethodName() + " message"),
            tooLarge,
                Status.RESOURCE_EXHAUSTED.withDescription(
                    "the decompressed request is larger than the server's message size limit"
                        + " (grpc.max-message-bytes)"));
    ServerCallHandler<ReqT, RespT> handler = method.getServerCallHandler();
    return ServerMethodDefinition.create(
        guardedDescriptor,
        (call, headers) -> new GuardedListener<>(handler.startCall(call, headers), call, poisons));
  }

  /** A method's two poison instances and the status each closes the call with. */
  private record Poisons<ReqT>(
      ReqT malformed, Status malformedStatus, ReqT tooLarge, Status tooLargeStatus) {
    /** The status for {@code request} if it is a poison, else null. */
    Status statusOf(ReqT request) {
      return request == malformed ? malformedStatus : request == tooLarge ? tooLargeStatus : null;
    }
  }

  /** Stops a poison before the service and closes the call; forwards everything else. */
  private static final class GuardedListener<ReqT>
      extends SimpleForwardingServerCallListener<ReqT> {
    private final ServerCall<ReqT, ?> call;
    private final Poisons<ReqT> poisons;
    private boolean rejected;

    GuardedListener(
        ServerCall.Listener<ReqT> next, ServerCall<ReqT, ?> call, Poisons<ReqT> poisons) {
      super(next);
      this.call = call;
      this.poisons = poisons;
    }

    @Override
    public void onMessage(ReqT request) {
      if (rejected) {
        return;
      }
      Status refusal = poisons.statusOf(request);
      if (refusal != null) {
        rejected = true;
        call.close(refusal, new Metadata());
        return;
      }
      super.onMessage(request);
    }

    @Override
    public void onHalfClose() {
      if (!rejected) {
        super.onHalfClose();
      }
    }

    @Override
    public void onReady() {
      if (!rejected) {
        super.onReady();
      }
    }
  }

  /** Parses with the original marshaller; answers a poison instead of throwing on bad bytes. */
  private record TolerantMarshaller<T>(Marshaller<T> delegate, T malformed, T tooLarge)
      implements Marshaller<T> {
    @Override
    public InputStream stream(T value) {
      return delegate.stream(value);
    }

    @Override
    public T parse(InputStream stream) {
      try {
        return delegate.parse(stream);
      } catch (StatusRuntimeException e) {
        // The protobuf marshaller reports unparseable bytes as INTERNAL, and the stream of a
        // compressed message that inflates past the limit throws RESOURCE_EXHAUSTED; the call is
        // then closed by the listener above with a description that does not echo the input.
        return switch (e.getStatus().getCode()) {
          case INTERNAL -> malformed;
          case RESOURCE_EXHAUSTED -> tooLarge;
          default -> throw e;
        };
      }
    }
  }
}
