package dev.veil.grpc.testing;

import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in for a further admin service (like {@code DeductionAdminApi}): {@code test.Echo/Echo}
 * returns its UTF-8 text request; "missing" makes it throw a NOT_FOUND domain error; "slow" makes
 * it wait for {@link #release()} after counting down {@link #entered()}.
 */
public final class EchoService implements BindableService {
  public static final String SERVICE = "test.Echo";
  public static final MethodDescriptor<String, String> ECHO =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Echo"))
          .setRequestMarshaller(new Utf8())
          .setResponseMarshaller(new Utf8())
          .build();

  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  public CountDownLatch entered() {
    return entered;
  }

  public void release() {
    release.countDown();
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(
            ECHO,
            ServerCalls.asyncUnaryCall(
                (request, out) -> {
                  if (request.equals("missing")) {
                    throw new VeilException(ErrorCode.NOT_FOUND, "no such record");
                  }
                  if (request.equals("slow")) {
                    entered.countDown();
                    awaitRelease();
                  }
                  out.onNext(request);
                  out.onCompleted();
                }))
        .build();
  }

  private void awaitRelease() {
    try {
      if (!release.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static final class Utf8 implements MethodDescriptor.Marshaller<String> {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
