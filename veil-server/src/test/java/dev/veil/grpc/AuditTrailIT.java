package dev.veil.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.client.AdminAction;
import dev.veil.client.Role;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc.DeductionAdminApiBlockingStub;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.identity.admin.v1.AuditEvent;
import dev.veil.grpc.identity.admin.v1.CreateClientRequest;
import dev.veil.grpc.identity.admin.v1.DeleteWebhookRequest;
import dev.veil.grpc.identity.admin.v1.DomainNames;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusRequest;
import dev.veil.grpc.identity.admin.v1.Identity;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc.IdentityAdminApiBlockingStub;
import dev.veil.grpc.identity.admin.v1.ListAuditEventsRequest;
import dev.veil.grpc.identity.admin.v1.ListAuditEventsResponse;
import dev.veil.grpc.identity.admin.v1.ListClientsRequest;
import dev.veil.grpc.identity.admin.v1.ListKeysRequest;
import dev.veil.grpc.identity.admin.v1.ListSitesRequest;
import dev.veil.grpc.identity.admin.v1.ListWebhooksRequest;
import dev.veil.grpc.identity.admin.v1.LookupOptOutRequest;
import dev.veil.grpc.identity.admin.v1.RecordOptOutRequest;
import dev.veil.grpc.identity.admin.v1.RegisterWebhookRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientKeyRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientSecretRequest;
import dev.veil.grpc.identity.admin.v1.RotateKeysRequest;
import dev.veil.grpc.identity.admin.v1.RotateSaltsRequest;
import dev.veil.grpc.identity.admin.v1.SetClientEnabledRequest;
import dev.veil.grpc.identity.admin.v1.SetSiteSharingRequest;
import dev.veil.grpc.identity.admin.v1.UpdateSiteRequest;
import dev.veil.testing.RunningAdminServer;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The audit trail through a real gRPC channel on a loopback port: one record for each change of
 * every admin method that changes something, none for reads, none holding a secret or an
 * identifier; the reason metadata; listing with filters and paging by an AUDIT_READER.
 */
class AuditTrailIT {
  private static final Metadata.Key<String> REASON =
      Metadata.Key.of("x-veil-reason", Metadata.ASCII_STRING_MARSHALLER);

  private final RunningAdminServer server =
      RunningAdminServer.startWith(RunningAdminServer::deductionAdmin);
  private final String auditorKey = server.node().newClientKey("auditor", Role.AUDIT_READER);

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  private Channel channel(String key, String reason) {
    Metadata headers = new Metadata();
    headers.put(RunningAdminServer.AUTHORIZATION, "Bearer " + key);
    if (reason != null) {
      headers.put(REASON, reason);
    }
    return ClientInterceptors.intercept(
        server.channel(), MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  private IdentityAdminApiBlockingStub admin(String reason) {
    return IdentityAdminApiGrpc.newBlockingStub(channel(server.adminKey(), reason))
        .withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private DeductionAdminApiBlockingStub deductions(String reason) {
    return DeductionAdminApiGrpc.newBlockingStub(channel(server.adminKey(), reason))
        .withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private IdentityAdminApiBlockingStub auditor() {
    return IdentityAdminApiGrpc.newBlockingStub(channel(auditorKey, null))
        .withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private List<AuditEvent> all() {
    return auditor()
        .listAuditEvents(ListAuditEventsRequest.newBuilder().setPageSize(1000).build())
        .getEventsList();
  }

  /** Runs {@code call}; the records it added, oldest first. */
  private List<AuditEvent> added(Supplier<?> call) {
    int before = all().size();
    assertThat(call.get()).isNotNull();
    List<AuditEvent> now = new ArrayList<>(all().subList(0, all().size() - before));
    java.util.Collections.reverse(now);
    return now;
  }

  @Test
  void everyChangeIsRecordedOnce_everyReadNever_andNoSecretOrIdentifierIsKept() {
    long adminId =
        server.node().services().clients().list().stream()
            .filter(c -> c.roles().contains(Role.ADMIN))
            .findFirst()
            .orElseThrow()
            .id();
    List<String> revealed = new ArrayList<>();
    List<String> recordedActions = new ArrayList<>();
    String reason = "ticket%20OPS-7%20%E2%80%94%20quarterly";

    var created =
        admin(reason)
            .createClient(
                CreateClientRequest.newBuilder()
                    .setName("dsp")
                    .addRoles("ID_READER")
                    .addRoles("mapper")
                    .build());
    revealed.add(created.getApiKey());
    revealed.add(created.getSecret());
    long id = created.getClient().getId();

    List<Supplier<?>> changes =
        List.of(
            () ->
                admin(reason)
                    .setClientEnabled(
                        SetClientEnabledRequest.newBuilder()
                            .setClientId(id)
                            .setEnabled(false)
                            .build()),
            () -> {
              var r =
                  admin(reason)
                      .rotateClientKey(RotateClientKeyRequest.newBuilder().setClientId(id).build());
              revealed.add(r.getApiKey());
              return r;
            },
            () -> {
              var r =
                  admin(reason)
                      .rotateClientSecret(
                          RotateClientSecretRequest.newBuilder().setClientId(id).build());
              revealed.add(r.getSecret());
              return r;
            },
            () ->
                admin(reason)
                    .rotateKeys(
                        RotateKeysRequest.newBuilder()
                            .addSiteIds(created.getClient().getSiteId())
                            .build()),
            () ->
                admin(reason)
                    .rotateSalts(RotateSaltsRequest.newBuilder().setFraction(0.01).build()),
            () ->
                admin(reason)
                    .recordOptOut(
                        RecordOptOutRequest.newBuilder()
                            .setIdentity(Identity.newBuilder().setEmail("jane.doe@example.com"))
                            .build()),
            () ->
                admin(reason)
                    .updateSite(
                        UpdateSiteRequest.newBuilder()
                            .setSiteId(42)
                            .setDomainNames(DomainNames.newBuilder().addNames("news.example"))
                            .build()),
            () ->
                admin(reason)
                    .setSiteSharing(
                        SetSiteSharingRequest.newBuilder()
                            .setSiteId(42)
                            .addAllowedSites(7)
                            .build()),
            () -> {
              var r =
                  admin(reason)
                      .registerWebhook(
                          RegisterWebhookRequest.newBuilder()
                              .setClientId(id)
                              .setUrl("https://hooks.example/optout?token=receiver-token-123")
                              .build());
              revealed.add(r.getSecret());
              revealed.add("receiver-token-123");
              return r;
            },
            () ->
                admin(reason)
                    .deleteWebhook(DeleteWebhookRequest.newBuilder().setWebhookId(1).build()),
            () ->
                deductions(reason)
                    .createDeduction(
                        DeductionReq.newBuilder().setTitle("Monthly").setPayMethodId(3).build()),
            () -> deductions(reason).closeDeduction(DeductionReq.newBuilder().setId(1).build()),
            () -> deductions(reason).openDeduction(DeductionReq.newBuilder().setId(1).build()));
    recordedActions.add("CreateClient");
    for (Supplier<?> change : changes) {
      List<AuditEvent> events = added(change);
      assertThat(events).as("records of one change").hasSize(1);
      recordedActions.add(events.get(0).getAction());
    }

    List<Supplier<?>> reads =
        List.of(
            () -> admin(reason).listClients(ListClientsRequest.getDefaultInstance()),
            () -> admin(reason).listKeys(ListKeysRequest.getDefaultInstance()),
            () -> admin(reason).getSaltStatus(GetSaltStatusRequest.getDefaultInstance()),
            () ->
                admin(reason)
                    .lookupOptOut(
                        LookupOptOutRequest.newBuilder()
                            .setIdentity(Identity.newBuilder().setEmail("jane.doe@example.com"))
                            .build()),
            () -> admin(reason).listSites(ListSitesRequest.getDefaultInstance()),
            () -> admin(reason).listWebhooks(ListWebhooksRequest.getDefaultInstance()),
            () -> deductions(reason).getDeductionList(DeductionReq.getDefaultInstance()),
            () -> deductions(reason).getExpiredDeductionList(DeductionReq.getDefaultInstance()),
            () -> deductions(reason).getDeduction(DeductionReq.newBuilder().setId(1).build()),
            () ->
                deductions(reason)
                    .listDeductions(
                        dev.veil.grpc.deduction.v1.ListDeductionsReq.getDefaultInstance()),
            () ->
                deductions(reason).getDeductionHistory(DeductionReq.newBuilder().setId(1).build()),
            () -> auditor().listAuditEvents(ListAuditEventsRequest.getDefaultInstance()));
    for (Supplier<?> read : reads) {
      assertThat(added(read)).isEmpty();
    }

    // Every mutation in the permission table was exercised, and recorded under its own name.
    assertThat(recordedActions)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(AdminAction.values())
                .filter(AdminAction::mutation)
                .map(AdminAction::method)
                .toList());

    List<AuditEvent> trail = all();
    assertThat(trail).hasSize(recordedActions.size());
    for (AuditEvent e : trail) {
      assertThat(e.getActorClientId()).isEqualTo(adminId);
      assertThat(e.getActorName()).isEqualTo("admin");
      assertThat(e.getReason()).isEqualTo("ticket OPS-7 \u2014 quarterly");
      String text = e.toString();
      for (String secret : revealed) {
        assertThat(text).doesNotContain(secret);
      }
      assertThat(text).doesNotContainIgnoringCase("jane").doesNotContain("example.com");
    }
    AuditEvent createdEvent = trail.get(trail.size() - 1);
    assertThat(createdEvent.getTarget()).isEqualTo("client " + id);
    assertThat(createdEvent.getDetailsJson())
        .isEqualTo("{\"name\":\"dsp\",\"site_id\":0,\"roles\":[\"MAPPER\",\"ID_READER\"]}");
    assertThat(trail)
        .filteredOn(e -> e.getAction().equals("RecordOptOut"))
        .singleElement()
        .satisfies(e -> assertThat(e.getTarget()).matches("identity [A-Za-z0-9_-]{22}"));
    assertThat(trail)
        .filteredOn(e -> e.getAction().equals("RegisterWebhook"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getTarget()).isEqualTo("webhook 1");
              assertThat(e.getDetailsJson()).contains("\"host\":\"hooks.example\"");
            });
    assertThat(trail)
        .filteredOn(e -> e.getAction().equals("CreateDeduction"))
        .singleElement()
        .satisfies(e -> assertThat(e.getTarget()).isEqualTo("deduction 1"));
  }

  @Test
  void aRefusedChangeLeavesNoRecord() {
    assertThatThrownBy(
            () ->
                admin(null)
                    .setClientEnabled(
                        SetClientEnabledRequest.newBuilder().setClientId(999).build()))
        .isInstanceOf(StatusRuntimeException.class);
    assertThat(
            deductions(null).openDeduction(DeductionReq.newBuilder().setId(99).build()).getCode())
        .isEqualTo(2);
    assertThat(
            deductions(null)
                .createDeduction(DeductionReq.newBuilder().setTitle(" ").build())
                .getCode())
        .isEqualTo(4);
    assertThat(all()).isEmpty();
  }

  @Test
  void aMalformedReasonIsRefusedBeforeAnythingChanges() {
    for (String bad : List.of("%E2%80", "%zz", "%0Anew line", "x".repeat(257))) {
      assertThatThrownBy(
              () ->
                  admin(bad).rotateSalts(RotateSaltsRequest.newBuilder().setFraction(0.5).build()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(e.getStatus().getDescription()).startsWith("x-veil-reason: ");
              });
    }
    assertThat(all()).isEmpty();
  }

  @Test
  void listing_filtersAndPages_andNeedsAuditReader() {
    for (int i = 0; i < 5; i++) {
      admin("r" + i).rotateSalts(RotateSaltsRequest.newBuilder().setFraction(0.01).build());
    }
    admin(null)
        .updateSite(
            UpdateSiteRequest.newBuilder()
                .setSiteId(5)
                .setDomainNames(DomainNames.newBuilder().addNames("a.example"))
                .build());

    ListAuditEventsResponse first =
        auditor()
            .listAuditEvents(
                ListAuditEventsRequest.newBuilder()
                    .setPageSize(2)
                    .setAction("RotateSalts")
                    .build());
    assertThat(first.getEventsList()).extracting(AuditEvent::getReason).containsExactly("r4", "r3");
    ListAuditEventsResponse second =
        auditor()
            .listAuditEvents(
                ListAuditEventsRequest.newBuilder()
                    .setPageSize(2)
                    .setAction("RotateSalts")
                    .setPageToken(first.getNextPageToken())
                    .build());
    assertThat(second.getEventsList())
        .extracting(AuditEvent::getReason)
        .containsExactly("r2", "r1");
    assertThat(
            auditor()
                .listAuditEvents(ListAuditEventsRequest.newBuilder().setTarget("site 5").build())
                .getEventsList())
        .extracting(AuditEvent::getAction)
        .containsExactly("UpdateSite");
    assertThatThrownBy(
            () ->
                auditor()
                    .listAuditEvents(
                        ListAuditEventsRequest.newBuilder().setPageToken("nope").build()))
        .hasMessageContaining("INVALID_ARGUMENT: page_token");

    String clientAdmin = server.node().newClientKey("clients only", Role.CLIENT_ADMIN);
    assertThatThrownBy(
            () ->
                IdentityAdminApiGrpc.newBlockingStub(channel(clientAdmin, null))
                    .listAuditEvents(ListAuditEventsRequest.getDefaultInstance()))
        .hasMessageContaining("PERMISSION_DENIED: ListAuditEvents needs the AUDIT_READER role");
  }
}
