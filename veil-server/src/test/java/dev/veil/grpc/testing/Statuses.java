package dev.veil.grpc.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** The gRPC status a call failed with. */
public final class Statuses {
  private Statuses() {}

  /** Runs {@code call}, asserts it failed with a gRPC status, and returns that status. */
  public static Status statusOf(ThrowingCallable call) {
    Throwable thrown = catchThrowable(call);
    assertThat(thrown)
        .as("the call should fail with a gRPC status")
        .isInstanceOf(StatusRuntimeException.class);
    return ((StatusRuntimeException) thrown).getStatus();
  }
}
