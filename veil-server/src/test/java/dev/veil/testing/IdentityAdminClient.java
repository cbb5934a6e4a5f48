package dev.veil.testing;

import dev.veil.grpc.identity.admin.v1.CreateClientRequest;
import dev.veil.grpc.identity.admin.v1.CreateClientResponse;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusRequest;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusResponse;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.ListClientsRequest;
import dev.veil.grpc.identity.admin.v1.ListClientsResponse;
import dev.veil.grpc.identity.admin.v1.ListKeysRequest;
import dev.veil.grpc.identity.admin.v1.ListKeysResponse;
import dev.veil.grpc.identity.admin.v1.RotateSaltsRequest;
import dev.veil.grpc.identity.admin.v1.RotateSaltsResponse;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An {@code IdentityAdminApi} client on its own plaintext channel to a loopback port, sending
 * {@code authorization: Bearer <key>}. Every call has a 30 s deadline. Close it after use.
 */
public final class IdentityAdminClient implements AutoCloseable {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ManagedChannel channel;
  private final IdentityAdminApiBlockingStub stub;

  public IdentityAdminClient(int port, String adminKey) {
    this.channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + adminKey);
    this.stub =
        IdentityAdminApiGrpc.newBlockingStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  /** The stub, with a fresh 30 s deadline. */
  public IdentityAdminApiBlockingStub api() {
    return stub.withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  /** Creates a client with its own site and the given role names. */
  public CreateClientResponse createClient(String name, String... roles) {
    return api()
        .createClient(
            CreateClientRequest.newBuilder().setName(name).addAllRoles(List.of(roles)).build());
  }

  public ListClientsResponse listClients() {
    return api().listClients(ListClientsRequest.getDefaultInstance());
  }

  public ListKeysResponse listKeys() {
    return api().listKeys(ListKeysRequest.getDefaultInstance());
  }

  public RotateSaltsResponse rotateSalts(double fraction) {
    return api().rotateSalts(RotateSaltsRequest.newBuilder().setFraction(fraction).build());
  }

  public GetSaltStatusResponse saltStatus() {
    return api().getSaltStatus(GetSaltStatusRequest.getDefaultInstance());
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
  }
}
