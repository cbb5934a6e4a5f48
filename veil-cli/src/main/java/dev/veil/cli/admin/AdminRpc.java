package dev.veil.cli.admin;

import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import io.grpc.Channel;
import java.util.concurrent.TimeUnit;

/**
 * A {@code veil admin} command on {@code IdentityAdminApi}: the server refuses with a gRPC status,
 * which {@link AdminCall} reports (exit 1).
 */
public abstract class AdminRpc extends AdminCall {
  /** Makes the call(s) and prints the result. */
  protected abstract void execute(IdentityAdminApiBlockingStub api, Output out);

  @Override
  final int run(Channel channel, Output out) {
    execute(
        IdentityAdminApiGrpc.newBlockingStub(channel)
            .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS),
        out);
    return OK;
  }
}
