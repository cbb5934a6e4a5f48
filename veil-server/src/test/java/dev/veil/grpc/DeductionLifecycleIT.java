package dev.veil.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import dev.veil.audit.AuditFilter;
import dev.veil.client.Role;
import dev.veil.deduction.DeductionService;
import dev.veil.grpc.deduction.v1.DeductionEvent;
import dev.veil.grpc.deduction.v1.DeductionHistoryResp;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.grpc.deduction.v1.ListDeductionsReq;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.DeductionWatcher;
import dev.veil.testing.InMemoryNode;
import dev.veil.testing.RunningAdminServer;
import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The production additions to {@code DeductionAdminApi} (docs/spec.md 6.1) through a gRPC channel
 * to a node's admin server: filtered lists, versions and conflicts, validity windows and the expiry
 * job, a record's history, and the change stream with its resume token.
 */
class DeductionLifecycleIT {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final AtomicReference<DeductionService> service = new AtomicReference<>();
  private final RunningAdminServer server = RunningAdminServer.startWith(this::deductionAdmin);
  private final DeductionClient admin = new DeductionClient(server.newChannel(), server.adminKey());

  private List<BindableService> deductionAdmin(InMemoryNode node) {
    service.set(
        new DeductionService(node.store().deductions(), node.services().audit(), node.clock()));
    return List.of(
        new DeductionAdminService(
            service.get(), node.services().audit(), Duration.ofSeconds(5), Duration.ofMillis(50)));
  }

  @AfterEach
  void stop() throws InterruptedException {
    admin.close();
    server.close();
  }

  private DeductionStruct created(String title, int payMethodId) {
    DeductionResp r = admin.create(title, "", payMethodId, "");
    assertThat(r.getCode()).as(r.getMessage()).isZero();
    return r.getData(0);
  }

  private DeductionResp list(ListDeductionsReq.Builder request) {
    return admin.api().listDeductions(request.build());
  }

  private static List<Integer> ids(DeductionResp r) {
    return r.getDataList().stream().map(DeductionStruct::getId).toList();
  }

  @Test
  void listDeductions_filtersByStatusPayMethodAndCreationTime_andPages() {
    long t0 = RunningAdminServer.START.toEpochMilli();
    for (int i = 1; i <= 6; i++) {
      created("d" + i, i % 2);
      server.node().clock().advance(Duration.ofSeconds(1));
    }
    admin.close(2);

    assertThat(ids(list(ListDeductionsReq.newBuilder()))).containsExactly(1, 2, 3, 4, 5, 6);
    assertThat(ids(list(ListDeductionsReq.newBuilder().addStatus(1)))).containsExactly(2);
    assertThat(ids(list(ListDeductionsReq.newBuilder().addPayMethodId(1))))
        .containsExactly(1, 3, 5);
    assertThat(
            ids(
                list(
                    ListDeductionsReq.newBuilder()
                        .setCreatedFromMs(t0 + 1_000)
                        .setCreatedBeforeMs(t0 + 4_000))))
        .containsExactly(2, 3, 4);
    DeductionResp firstPage =
        list(ListDeductionsReq.newBuilder().addStatus(0).addPayMethodId(0).setPageSize(1));
    assertThat(ids(firstPage)).containsExactly(4);
    assertThat(
            ids(
                list(
                    ListDeductionsReq.newBuilder()
                        .addStatus(0)
                        .addPayMethodId(0)
                        .setPageSize(1)
                        .setPageToken(firstPage.getNextPageToken()))))
        .containsExactly(6);
    DeductionResp badStatus = list(ListDeductionsReq.newBuilder().addStatus(7));
    assertThat(badStatus.getCode()).isEqualTo(4);
    assertThat(badStatus.getMessage())
        .isEqualTo("invalid argument: status must be 0 (NORMAL) or 1 (EXPIRED), not 7");
    assertThat(
            list(ListDeductionsReq.newBuilder().setCreatedFromMs(t0).setCreatedBeforeMs(t0))
                .getCode())
        .isEqualTo(4);
  }

  @Test
  void openAndClose_withAStaleVersion_areCode5_changeNothing_andAreNotAudited() {
    DeductionStruct d = created("v", 0);
    assertThat(d.getVersion()).isEqualTo(1);
    DeductionResp closed =
        admin
            .api()
            .closeDeduction(
                DeductionReq.newBuilder().setId(d.getId()).setExpectedVersion(1).build());
    DeductionResp stale =
        admin
            .api()
            .openDeduction(
                DeductionReq.newBuilder().setId(d.getId()).setExpectedVersion(1).build());

    assertThat(closed.getCode()).isZero();
    assertThat(closed.getData(0).getVersion()).isEqualTo(2);
    assertThat(closed.getData(0).getCloseReason()).isEqualTo(1);
    assertThat(stale.getCode()).isEqualTo(5);
    assertThat(stale.getSuccess()).isFalse();
    assertThat(stale.getMessage()).isEqualTo("version conflict: the deduction is at version 2");
    assertThat(stale.getDataList()).isEmpty();
    assertThat(admin.get(d.getId()).getData(0)).isEqualTo(closed.getData(0));
    assertThat(server.node().store().audit().list(AuditFilter.ALL, 10))
        .extracting(e -> e.action())
        .containsExactly("CloseDeduction", "CreateDeduction");
  }

  @Test
  void aValidityWindow_endsInAScheduledClose_thatHistoryAndTheAuditTrailShow() {
    long t0 = RunningAdminServer.START.toEpochMilli();
    DeductionResp r =
        admin
            .api()
            .createDeduction(
                DeductionReq.newBuilder().setTitle("trial").setValidUntilMs(t0 + 60_000).build());
    int id = r.getData(0).getId();
    assertThat(r.getData(0).getValidUntilMs()).isEqualTo(t0 + 60_000);

    server.node().clock().advance(Duration.ofSeconds(60));
    assertThat(service.get().expireDue()).isEqualTo(1);
    DeductionResp reopenWithoutWindow = admin.open(id);
    DeductionResp reopened =
        admin
            .api()
            .openDeduction(
                DeductionReq.newBuilder().setId(id).setValidUntilMs(t0 + 120_000).build());
    DeductionHistoryResp history =
        admin.api().getDeductionHistory(DeductionReq.newBuilder().setId(id).build());

    assertThat(reopenWithoutWindow.getCode()).isEqualTo(4);
    assertThat(reopenWithoutWindow.getMessage()).contains("the validity window ended");
    assertThat(reopened.getCode()).isZero();
    assertThat(reopened.getData(0).getVersion()).isEqualTo(3);
    assertThat(history.getCode()).isZero();
    assertThat(history.getEventsList())
        .extracting(
            DeductionEvent::getKind,
            e -> e.getDeduction().getStatus(),
            e -> e.getDeduction().getCloseReason(),
            DeductionEvent::getActor)
        .containsExactly(
            tuple(1, 0, 0, "admin"), tuple(4, 1, 2, "veil expiry job"), tuple(2, 0, 0, "admin"));
    assertThat(server.node().store().audit().list(AuditFilter.ALL, 10))
        .extracting(e -> e.action(), e -> e.actorName())
        .containsExactly(
            tuple("OpenDeduction", "admin"),
            tuple("ExpireDeduction", "veil expiry job"),
            tuple("CreateDeduction", "admin"));
    assertThat(
            admin.api().getDeductionHistory(DeductionReq.newBuilder().setId(99).build()).getCode())
        .isEqualTo(2);
  }

  @Test
  void watch_deliversEveryChangeInOrder_andResumesAfterAnyTokenWithoutGapsOrRepeats()
      throws Exception {
    DeductionStruct a = created("a", 0);
    try (DeductionWatcher all =
        DeductionWatcher.start(server.newChannel(), server.adminKey(), "")) {
      assertThat(all.take(1, WAIT).get(0).getDeduction()).isEqualTo(a);
      created("b", 0);
      admin.close(a.getId());
      admin.open(a.getId());
      List<DeductionEvent> live = all.take(3, WAIT);
      assertThat(live)
          .extracting(e -> e.getDeduction().getTitle(), DeductionEvent::getKind)
          .containsExactly(tuple("b", 1), tuple("a", 3), tuple("a", 2));
      assertThat(live.get(2).getDeduction()).isEqualTo(admin.get(a.getId()).getData(0));

      try (DeductionWatcher resumed =
          DeductionWatcher.start(
              server.newChannel(), server.adminKey(), live.get(0).getResumeToken())) {
        assertThat(resumed.take(2, WAIT)).isEqualTo(live.subList(1, 3));
        created("c", 0);
        assertThat(resumed.take(1, WAIT).get(0).getDeduction().getTitle()).isEqualTo("c");
        assertThat(all.take(1, WAIT).get(0).getDeduction().getTitle()).isEqualTo("c");
        assertThat(resumed.drain()).isEmpty();
      }
    }
  }

  @Test
  void watch_seesChangesMadeOutsideThisService_withinItsInterval() throws Exception {
    try (DeductionWatcher watcher =
        DeductionWatcher.start(server.newChannel(), server.adminKey(), "")) {
      // Written straight to the store, as another node would: no local wake-up, only the poll.
      server.insertDeductionInStore("elsewhere");
      assertThat(watcher.take(1, WAIT).get(0).getDeduction().getTitle()).isEqualTo("elsewhere");
    }
  }

  @Test
  void watch_refusesATokenThatIsNotOurs_andACallerWithoutTheRole() throws Exception {
    String auditor = server.node().newClientKey("auditor", Role.AUDIT_READER);
    try (DeductionWatcher bad =
            DeductionWatcher.start(server.newChannel(), server.adminKey(), "not-a-token");
        DeductionWatcher denied = DeductionWatcher.start(server.newChannel(), auditor, "")) {
      Status badStatus = bad.awaitEnd(WAIT);
      Status deniedStatus = denied.awaitEnd(WAIT);

      assertThat(badStatus.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(badStatus.getDescription()).contains("resume_token");
      assertThat(deniedStatus.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(deniedStatus.getDescription()).contains("DEDUCTION_READER");
    }
    String reader = server.node().newClientKey("reader", Role.DEDUCTION_READER);
    DeductionClient readOnly = new DeductionClient(server.newChannel(), reader);
    try {
      StatusRuntimeException e =
          catchThrowableOfType(StatusRuntimeException.class, () -> readOnly.close(1));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(readOnly.api().listDeductions(ListDeductionsReq.getDefaultInstance()).getCode())
          .isZero();
    } finally {
      readOnly.close();
    }
  }

  @Test
  void watch_endsWithUnavailable_whenTheNodeStops() throws Exception {
    created("a", 0);
    DeductionWatcher watcher = DeductionWatcher.start(server.newChannel(), server.adminKey(), "");
    watcher.take(1, WAIT);

    server.close();

    assertThat(watcher.awaitEnd(WAIT).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }
}
