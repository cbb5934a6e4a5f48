package dev.veil.grpc;

import dev.veil.audit.AuditLog;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionAudit;
import dev.veil.deduction.DeductionFilter;
import dev.veil.deduction.DeductionResult;
import dev.veil.deduction.DeductionService;
import dev.veil.deduction.DeductionStatus;
import dev.veil.deduction.ResumeToken;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionEvent;
import dev.veil.grpc.deduction.v1.DeductionHistoryResp;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.grpc.deduction.v1.ListDeductionsReq;
import dev.veil.grpc.deduction.v1.WatchDeductionsReq;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
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
 * CallDeadlines deadline}, {@code timeout} after the call arrived (code 1 after that). The change
 * streams of {@code WatchDeductions} are {@link DeductionWatches}; {@link #close()} ends them.
 */
public final class DeductionAdminService extends DeductionAdminApiGrpc.DeductionAdminApiImplBase
    implements AutoCloseable {
  private final DeductionService deductions;
  private final AuditLog audit;
  private final CallDeadlines deadlines;
  private final DeductionWatches watches;

  /**
   * @param audit where each change is recorded, in its own transaction (not a refused one)
   * @param timeout {@code db.timeout}: how long after its arrival a call gets its answer
   * @param watchInterval {@code deductions.watch-interval}: how often a change stream reads the log
   *     for changes made through other nodes
   */
  public DeductionAdminService(
      DeductionService deductions, AuditLog audit, Duration timeout, Duration watchInterval) {
    this.deductions = deductions;
    this.audit = audit;
    this.deadlines = new CallDeadlines(timeout);
    this.watches = new DeductionWatches(deductions, watchInterval, timeout);
  }

  /** Ends the open change streams (UNAVAILABLE: reconnect with the last token elsewhere). */
  @Override
  public void close() {
    watches.close();
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
  public void listDeductions(ListDeductionsReq request, StreamObserver<DeductionResp> out) {
    Set<DeductionStatus> statuses = EnumSet.noneOf(DeductionStatus.class);
    for (int code : request.getStatusList()) {
      Optional<DeductionStatus> status = DeductionStatus.ofCode(Integer.toUnsignedLong(code));
      if (status.isEmpty()) {
        answer(
            out,
            () ->
                DeductionResult.invalid(
                    "status must be 0 (NORMAL) or 1 (EXPIRED), not "
                        + Integer.toUnsignedLong(code)));
        return;
      }
      statuses.add(status.get());
    }
    Set<Long> payMethods = new HashSet<>();
    request.getPayMethodIdList().forEach(p -> payMethods.add(Integer.toUnsignedLong(p)));
    DeductionFilter filter =
        new DeductionFilter(
            statuses,
            payMethods,
            instant(request.getCreatedFromMs()),
            instant(request.getCreatedBeforeMs()));
    answer(
        out,
        () ->
            deductions.list(
                filter, Integer.toUnsignedLong(request.getPageSize()), request.getPageToken()));
  }

  private static Optional<Instant> instant(long millis) {
    return millis == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
  }

  @Override
  public void getDeductionHistory(DeductionReq request, StreamObserver<DeductionHistoryResp> out) {
    if (refusedCancelled(out)) {
      return;
    }
    DeductionResult result =
        deadlines.bound(() -> deductions.history(Integer.toUnsignedLong(request.getId())));
    DeductionHistoryResp.Builder response =
        DeductionHistoryResp.newBuilder()
            .setSuccess(result.success())
            .setCode(result.code().number())
            .setMessage(result.message());
    result.events().forEach(e -> response.addEvents(event(e)));
    out.onNext(response.build());
    out.onCompleted();
  }

  @Override
  public void watchDeductions(WatchDeductionsReq request, StreamObserver<DeductionEvent> out) {
    watches.watch(request.getResumeToken(), out);
  }

  @Override
  public void openDeduction(DeductionReq request, StreamObserver<DeductionResp> out) {
    long id = Integer.toUnsignedLong(request.getId());
    answer(
        out,
        () ->
            recorded(
                DeductionAudit.OPEN,
                id,
                DeductionAudit.opened(request.getValidUntilMs()),
                () ->
                    deductions.open(id, request.getExpectedVersion(), request.getValidUntilMs())));
  }

  @Override
  public void closeDeduction(DeductionReq request, StreamObserver<DeductionResp> out) {
    long id = Integer.toUnsignedLong(request.getId());
    answer(
        out,
        () ->
            recorded(
                DeductionAudit.CLOSE,
                id,
                DeductionAudit.closed(),
                () -> deductions.close(id, request.getExpectedVersion())));
  }

  @Override
  public void createDeduction(DeductionReq request, StreamObserver<DeductionResp> out) {
    answer(
        out,
        () ->
            audit.recordCreation(
                AdminAuthInterceptor.actor(),
                DeductionAudit.CREATE,
                "deduction",
                DeductionAudit.created(
                    request.getTitle(),
                    Integer.toUnsignedLong(request.getPayMethodId()),
                    request.getValidUntilMs()),
                () ->
                    deductions.create(
                        request.getTitle(),
                        request.getDesc(),
                        Integer.toUnsignedLong(request.getPayMethodId()),
                        request.getRequestId(),
                        request.getValidUntilMs()),
                DeductionResult::success));
  }

  private DeductionResult recorded(
      String action, long id, String details, Supplier<DeductionResult> change) {
    return audit.record(
        AdminAuthInterceptor.actor(),
        action,
        DeductionAudit.target(id),
        details,
        change,
        DeductionResult::success);
  }

  private void answer(StreamObserver<DeductionResp> out, Supplier<DeductionResult> call) {
    if (refusedCancelled(out)) {
      return;
    }
    out.onNext(response(deadlines.bound(call)));
    out.onCompleted();
  }

  /** Whether the call was already cancelled or past its deadline (then answered CANCELLED). */
  private static boolean refusedCancelled(StreamObserver<?> out) {
    if (!Context.current().isCancelled()) {
      return false;
    }
    out.onError(
        Status.CANCELLED
            .withDescription("the call was cancelled or its deadline passed before it ran")
            .asRuntimeException());
    return true;
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
        .setVersion(d.version())
        .setValidUntilMs(d.validUntil().map(Instant::toEpochMilli).orElse(0L))
        .setCloseReason(d.closeReason().code())
        .build();
  }

  static DeductionEvent event(dev.veil.deduction.DeductionEvent e) {
    return DeductionEvent.newBuilder()
        .setKind(e.kind().code())
        .setDeduction(struct(e.deduction()))
        .setAtMs(e.at().toEpochMilli())
        .setActor(e.actor())
        .setResumeToken(ResumeToken.of(e.position()))
        .build();
  }
}
