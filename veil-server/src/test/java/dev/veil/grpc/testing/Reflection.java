package dev.veil.grpc.testing;

import io.grpc.Channel;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** One request to the server reflection service (v1), as a generic client such as buf sends it. */
public final class Reflection {
  private Reflection() {}

  /**
   * Sends {@code request} on a new reflection stream and returns the first answer (10 s at most).
   */
  public static ServerReflectionResponse ask(Channel channel, ServerReflectionRequest request)
      throws Exception {
    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(channel)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse value) {
                    answer.complete(value);
                  }

                  @Override
                  public void onError(Throwable t) {
                    answer.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {
                    answer.completeExceptionally(new IllegalStateException("no answer"));
                  }
                });
    requests.onNext(request);
    requests.onCompleted();
    return answer.get(10, TimeUnit.SECONDS);
  }
}
