package dev.veil.grpc;

import dev.veil.audit.AuditDetails;
import dev.veil.audit.AuditLog;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionResult;
import dev.veil.deduction.DeductionService;
import dev.veil.deduction.DeductionStatus;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * {@code DeductionAdminApi} (docs/spec.md 6.1): translates each {@link DeductionReq} into one
 * {@link DeductionService} call and its {@link DeductionResult} into a {@link DeductionResp}.
 * Business outcomes (including a store outage) travel in {@code code} and {@code message} with gRPC
 * status OK; gRPC status codes are left to call-level failures: {@link AdminAuthInterceptor}
 * refuses calls without an ADMIN key, and a call already cancelled or past its deadline when it
 * gets here is answered CANCELLED without touching the store.
 *
 * <p>Unsigned wire numbers ({@code uint32}) become non-negative {@code long}s. Handlers block on
 * the store, so the server runs them on its executor; each call's store work ends by its {@link
 * CallDeadlines deadline}, {@code timeout} after the call arrived (code 1 after that).
 */
public final class DeductionAdminService extends DeductionAdminApiGrpc.DeductionAdminApiImplBase {
  private final DeductionService deductions;
  private final AuditLog audit;
  private final CallDeadlines deadlines;

  /**
   * @param audit where each change is recorded, in its own transaction (not a refused one)
   * @param timeout {@code db.timeout}: how long after its arrival a call gets its answer
   */
  public DeductionAdminService(DeductionService deductions, AuditLog audit, Duration timeout) {
    this.deductions = deductions;
    this.audit = audit;
    this.deadlines = new CallDeadlines(timeout);
  }

  @Override
  public void getDeductionList(DeductionReq request, StreamObserver<DeductionResp> out) {
    answer(
        out,
        () ->
            deductions.list(
                DeductionStatus.NORMAL,
                Integer.toUnsignedLong(request.getPageSize()),
                request.getPageToken()));
  }

  @Override
  public void getExpiredDeductionList(DeductionReq request, StreamObserver<DeductionResp> out) {
    answer(
        out,
        () ->
            deductions.list(
                DeductionStatus.EXPIRED,
                Integer.toUnsignedLong(request.getPageSize()),
                request.getPageToken()));
  }

  @Override
  public void getDeduction(DeductionReq request, StreamObserver<DeductionResp> out) {
    answer(out, () -> deductions.get(Integer.toUnsignedLong(request.getId())));
  }

  @Override
  public void openDeduction(DeductionReq request, StreamObserver<DeductionResp> out) {
    long id = Integer.toUnsignedLong(request.getId());
    answer(out, () -> recorded("OpenDeduction", id, "NORMAL", () -> deductions.open(id)));
  }

  @Override
  public void closeDeduction(DeductionReq request, StreamObserver<DeductionResp> out) {
    long id = Integer.toUnsignedLong(request.getId());
    answer(out, () -> recorded("CloseDeduction", id, "EXPIRED", () -> deductions.close(id)));
  }

  @Override
  public void createDeduction(DeductionReq request, StreamObserver<DeductionResp> out) {
    answer(
        out,
        () ->
            audit.recordCreation(
                AdminAuthInterceptor.actor(),
                "CreateDeduction",
                "deduction",
                AuditDetails.of()
                    .put("title", request.getTitle())
                    .put("pay_method_id", Integer.toUnsignedLong(request.getPayMethodId()))
                    .json(),
                () ->
                    deductions.create(
                        request.getTitle(),
                        request.getDesc(),
                        Integer.toUnsignedLong(request.getPayMethodId()),
                        request.getRequestId()),
                DeductionResult::success));
  }

  private DeductionResult recorded(
      String action, long id, String status, Supplier<DeductionResult> change) {
    return audit.record(
        AdminAuthInterceptor.actor(),
        action,
        "deduction " + id,
        AuditDetails.of().put("status", status).json(),
        change,
        DeductionResult::success);
  }

  private void answer(StreamObserver<DeductionResp> out, Supplier<DeductionResult> call) {
    if (Context.current().isCancelled()) {
      out.onError(
          Status.CANCELLED
              .withDescription("the call was cancelled or its deadline passed before it ran")
              .asRuntimeException());
      return;
    }
    out.onNext(response(deadlines.bound(call)));
    out.onCompleted();
  }

  static DeductionResp response(DeductionResult result) {
    DeductionResp.Builder response =
        DeductionResp.newBuilder()
            .setSuccess(result.success())
            .setCode(result.code().number())
            .setMessage(result.message())
            .setNextPageToken(result.nextPageToken());
    result.records().forEach(d -> response.addData(struct(d)));
    return response.build();
  }

  static DeductionStruct struct(Deduction d) {
    return DeductionStruct.newBuilder()
        .setId((int) d.id())
        .setTitle(d.title())
        .setDesc(d.desc())
        .setStatus(d.status().code())
        .setPayMethodId((int) d.payMethodId())
        .setCreatedMs(d.created().toEpochMilli())
        .setUpdatedMs(d.updated().toEpochMilli())
        .build();
  }
}
