package dev.veil.testing;

import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc.DeductionAdminApiBlockingStub;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;

/**
 * A {@code DeductionAdminApi} client on its own channel (plaintext to a loopback port, or any given
 * one), sending {@code authorization: Bearer <key>} (or nothing, for a null key). Every call has a
 * 30 s deadline. Close it after use.
 */
public final class DeductionClient implements AutoCloseable {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ManagedChannel channel;
  private final DeductionAdminApiBlockingStub stub;

  public DeductionClient(int port, String apiKey) {
    this(ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build(), apiKey);
  }

  /** A client on {@code channel}, which it closes on {@link #close()}. */
  public DeductionClient(ManagedChannel channel, String apiKey) {
    this.channel = channel;
    DeductionAdminApiBlockingStub plain = DeductionAdminApiGrpc.newBlockingStub(channel);
    if (apiKey != null) {
      Metadata headers = new Metadata();
      headers.put(AUTHORIZATION, "Bearer " + apiKey);
      plain = plain.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    this.stub = plain;
  }

  /** The stub, with a fresh 30 s deadline. */
  public DeductionAdminApiBlockingStub api() {
    return stub.withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  public DeductionResp create(String title, String desc, int payMethodId, String requestId) {
    return api()
        .createDeduction(
            DeductionReq.newBuilder()
                .setTitle(title)
                .setDesc(desc)
                .setPayMethodId(payMethodId)
                .setRequestId(requestId)
                .build());
  }

  public DeductionResp get(long id) {
    return api().getDeduction(DeductionReq.newBuilder().setId((int) id).build());
  }

  public DeductionResp open(long id) {
    return api().openDeduction(DeductionReq.newBuilder().setId((int) id).build());
  }

  public DeductionResp close(long id) {
    return api().closeDeduction(DeductionReq.newBuilder().setId((int) id).build());
  }

  /** Every NORMAL record (page_size 0). */
  public DeductionResp listNormal() {
    return api().getDeductionList(DeductionReq.getDefaultInstance());
  }

  /** Every EXPIRED record (page_size 0). */
  public DeductionResp listExpired() {
    return api().getExpiredDeductionList(DeductionReq.getDefaultInstance());
  }

  public ManagedChannel channel() {
    return channel;
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
  }
}
