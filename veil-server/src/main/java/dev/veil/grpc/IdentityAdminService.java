package dev.veil.grpc;

import dev.veil.audit.AuditDetails;
import dev.veil.audit.AuditEvent;
import dev.veil.audit.AuditFilter;
import dev.veil.audit.AuditLog;
import dev.veil.client.ApiClient;
import dev.veil.client.ClientService;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.core.identity.IdentityHash;
import dev.veil.grpc.identity.admin.v1.CreateClientRequest;
import dev.veil.grpc.identity.admin.v1.CreateClientResponse;
import dev.veil.grpc.identity.admin.v1.DeleteWebhookRequest;
import dev.veil.grpc.identity.admin.v1.DeleteWebhookResponse;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusRequest;
import dev.veil.grpc.identity.admin.v1.GetSaltStatusResponse;
import dev.veil.grpc.identity.admin.v1.Identity;
import dev.veil.grpc.identity.admin.v1.IdentityAdminApiGrpc;
import dev.veil.grpc.identity.admin.v1.ListAuditEventsRequest;
import dev.veil.grpc.identity.admin.v1.ListAuditEventsResponse;
import dev.veil.grpc.identity.admin.v1.ListClientsRequest;
import dev.veil.grpc.identity.admin.v1.ListClientsResponse;
import dev.veil.grpc.identity.admin.v1.ListKeysRequest;
import dev.veil.grpc.identity.admin.v1.ListKeysResponse;
import dev.veil.grpc.identity.admin.v1.ListSitesRequest;
import dev.veil.grpc.identity.admin.v1.ListSitesResponse;
import dev.veil.grpc.identity.admin.v1.ListWebhooksRequest;
import dev.veil.grpc.identity.admin.v1.ListWebhooksResponse;
import dev.veil.grpc.identity.admin.v1.LookupOptOutRequest;
import dev.veil.grpc.identity.admin.v1.LookupOptOutResponse;
import dev.veil.grpc.identity.admin.v1.RecordOptOutRequest;
import dev.veil.grpc.identity.admin.v1.RecordOptOutResponse;
import dev.veil.grpc.identity.admin.v1.RegisterWebhookRequest;
import dev.veil.grpc.identity.admin.v1.RegisterWebhookResponse;
import dev.veil.grpc.identity.admin.v1.RotateClientKeyRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientKeyResponse;
import dev.veil.grpc.identity.admin.v1.RotateClientSecretRequest;
import dev.veil.grpc.identity.admin.v1.RotateClientSecretResponse;
import dev.veil.grpc.identity.admin.v1.RotateKeysRequest;
import dev.veil.grpc.identity.admin.v1.RotateKeysResponse;
import dev.veil.grpc.identity.admin.v1.RotateSaltsRequest;
import dev.veil.grpc.identity.admin.v1.RotateSaltsResponse;
import dev.veil.grpc.identity.admin.v1.SetClientEnabledRequest;
import dev.veil.grpc.identity.admin.v1.SetClientEnabledResponse;
import dev.veil.grpc.identity.admin.v1.SetSiteSharingRequest;
import dev.veil.grpc.identity.admin.v1.SetSiteSharingResponse;
import dev.veil.grpc.identity.admin.v1.UpdateSiteRequest;
import dev.veil.grpc.identity.admin.v1.UpdateSiteResponse;
import dev.veil.identity.IdentityMapper;
import dev.veil.key.KeyRing;
import dev.veil.key.KeyService;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltService;
import dev.veil.salt.SaltService.RotationStatus;
import dev.veil.site.ParticipantType;
import dev.veil.site.Sharing;
import dev.veil.site.Site;
import dev.veil.site.SiteService;
import dev.veil.webhook.WebhookService;
import io.grpc.stub.StreamObserver;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code IdentityAdminApi} (docs/spec.md 6.2): translates each request into one domain call and its
 * result into a response. Decides nothing itself beyond input shape; refusals are thrown and turned
 * into status codes by {@link DomainErrorInterceptor}. Callers are admins, checked by {@link
 * AdminAuthInterceptor} before a method runs. Some calls block on the store (opt-outs, client and
 * key writes), so the server runs them on its executor, never on a network thread.
 *
 * <p>Every call that reaches the store ends by its {@link CallDeadlines deadline}, {@code
 * db.timeout} after it arrived (UNAVAILABLE after that), except the rotations ({@code RotateKeys},
 * {@code RotateSalts}): bulk work over every keyset or bucket, whose store calls are bounded one
 * statement at a time instead.
 */
public final class IdentityAdminService extends IdentityAdminApiGrpc.IdentityAdminApiImplBase {
  private final ClientService clients;
  private final KeyService keys;
  private final SaltService salts;
  private final OptOutService optOuts;
  private final SiteService sites;
  private final WebhookService webhooks;
  private final IdentityMapper mapper;
  private final AuditLog audit;
  private final Clock clock;
  private final CallDeadlines deadlines;

  /**
   * @param mapper turns an identity given for an opt-out into its first-level hash
   * @param audit where every change is recorded, in the change's own transaction
   * @param storeTimeout how long after its arrival a call that writes may still reach the store
   *     ({@code db.timeout})
   */
  public IdentityAdminService(
      ClientService clients,
      KeyService keys,
      SaltService salts,
      OptOutService optOuts,
      SiteService sites,
      WebhookService webhooks,
      IdentityMapper mapper,
      AuditLog audit,
      Clock clock,
      Duration storeTimeout) {
    this.clients = clients;
    this.keys = keys;
    this.salts = salts;
    this.optOuts = optOuts;
    this.sites = sites;
    this.webhooks = webhooks;
    this.mapper = mapper;
    this.audit = audit;
    this.clock = clock;
    this.deadlines = new CallDeadlines(storeTimeout);
  }

  @Override
  public void createClient(CreateClientRequest request, StreamObserver<CreateClientResponse> out) {
    ApiClient caller = AdminAuthInterceptor.CALLER.get();
    String name = AdminMessages.clientName(request.getName());
    Set<Role> roles = AdminMessages.roles(request.getRolesList());
    String details =
        AuditDetails.of()
            .put("name", name)
            .put("site_id", request.getSiteId())
            .put("roles", new TreeSet<>(roles))
            .json();
    CreatedClient created =
        deadlines.bound(
            () ->
                audit.recordCreation(
                    AdminAuthInterceptor.actor(),
                    "CreateClient",
                    "client",
                    details,
                    () -> clients.create(caller, name, request.getSiteId(), roles)));
    reply(
        out,
        CreateClientResponse.newBuilder()
            .setClient(AdminMessages.client(created.client()))
            .setApiKey(created.key().reveal())
            .setSecret(created.client().secret().reveal())
            .build());
  }

  @Override
  public void listClients(ListClientsRequest request, StreamObserver<ListClientsResponse> out) {
    ListClientsResponse.Builder response = ListClientsResponse.newBuilder();
    clients.list().forEach(c -> response.addClients(AdminMessages.client(c)));
    reply(out, response.build());
  }

  @Override
  public void setClientEnabled(
      SetClientEnabledRequest request, StreamObserver<SetClientEnabledResponse> out) {
    ApiClient caller = AdminAuthInterceptor.CALLER.get();
    var client =
        deadlines.bound(
            () ->
                audit.record(
                    AdminAuthInterceptor.actor(),
                    "SetClientEnabled",
                    "client " + request.getClientId(),
                    AuditDetails.of().put("enabled", request.getEnabled()).json(),
                    () -> clients.setEnabled(caller, request.getClientId(), request.getEnabled())));
    reply(
        out, SetClientEnabledResponse.newBuilder().setClient(AdminMessages.client(client)).build());
  }

  @Override
  public void rotateClientKey(
      RotateClientKeyRequest request, StreamObserver<RotateClientKeyResponse> out) {
    ApiClient caller = AdminAuthInterceptor.CALLER.get();
    CreatedClient rotated =
        deadlines.bound(
            () ->
                audit.record(
                    AdminAuthInterceptor.actor(),
                    "RotateClientKey",
                    "client " + request.getClientId(),
                    AuditDetails.none(),
                    () -> clients.rotateKey(caller, request.getClientId())));
    reply(
        out,
        RotateClientKeyResponse.newBuilder()
            .setClient(AdminMessages.client(rotated.client()))
            .setApiKey(rotated.key().reveal())
            .build());
  }

  @Override
  public void rotateClientSecret(
      RotateClientSecretRequest request, StreamObserver<RotateClientSecretResponse> out) {
    ApiClient caller = AdminAuthInterceptor.CALLER.get();
    ApiClient rotated =
        deadlines.bound(
            () ->
                audit.record(
                    AdminAuthInterceptor.actor(),
                    "RotateClientSecret",
                    "client " + request.getClientId(),
                    AuditDetails.none(),
                    () -> clients.rotateSecret(caller, request.getClientId())));
    reply(
        out,
        RotateClientSecretResponse.newBuilder()
            .setClient(AdminMessages.client(rotated))
            .setSecret(rotated.secret().reveal())
            .build());
  }

  @Override
  public void listKeys(ListKeysRequest request, StreamObserver<ListKeysResponse> out) {
    Instant now = clock.instant();
    ListKeysResponse.Builder response = ListKeysResponse.newBuilder();
    keys.ring().all().forEach(k -> response.addKeys(AdminMessages.keyInfo(k, now)));
    reply(out, response.build());
  }

  @Override
  public void rotateKeys(RotateKeysRequest request, StreamObserver<RotateKeysResponse> out) {
    Set<Integer> siteIds = new LinkedHashSet<>(request.getSiteIdsList());
    KeyRing ring = keys.ring();
    for (int siteId : siteIds) {
      if (ring.newestKey(siteId).isEmpty()) {
        throw new VeilException(ErrorCode.NOT_FOUND, "no keyset for site id " + siteId);
      }
    }
    Instant now = clock.instant();
    RotateKeysResponse.Builder response = RotateKeysResponse.newBuilder();
    audit
        .record(
            AdminAuthInterceptor.actor(),
            "RotateKeys",
            "keysets",
            AuditDetails.of().put("site_ids", siteIds).json(),
            () -> keys.rotateNow(siteIds))
        .forEach(k -> response.addCreated(AdminMessages.keyInfo(k, now)));
    reply(out, response.build());
  }

  @Override
  public void rotateSalts(RotateSaltsRequest request, StreamObserver<RotateSaltsResponse> out) {
    int rotated =
        switch (request.getTargetCase()) {
          case FRACTION ->
              audit.record(
                  AdminAuthInterceptor.actor(),
                  "RotateSalts",
                  "salts",
                  AuditDetails.of().put("fraction", request.getFraction()).json(),
                  () -> salts.rotateFraction(request.getFraction()));
          case BUCKETS -> {
            var buckets = AdminMessages.bucketIds(request.getBuckets().getBucketIdsList());
            yield audit.record(
                AdminAuthInterceptor.actor(),
                "RotateSalts",
                "salts",
                AuditDetails.of().put("buckets", request.getBuckets().getBucketIdsCount()).json(),
                () -> salts.rotateBuckets(buckets));
          }
          case TARGET_NOT_SET -> throw VeilException.clientError("set either fraction or buckets");
        };
    reply(out, RotateSaltsResponse.newBuilder().setRotatedBuckets(rotated).build());
  }

  @Override
  public void getSaltStatus(
      GetSaltStatusRequest request, StreamObserver<GetSaltStatusResponse> out) {
    RotationStatus status = deadlines.bound(() -> salts.status());
    reply(
        out,
        GetSaltStatusResponse.newBuilder()
            .setBucketCount(status.bucketCount())
            .setRotatedBuckets(status.rotatedBuckets())
            .setOldestSaltMs(status.oldestSaltAt().toEpochMilli())
            .setLastDailyRotationDay(status.lastDailyRotationDay())
            .build());
  }

  @Override
  public void recordOptOut(RecordOptOutRequest request, StreamObserver<RecordOptOutResponse> out) {
    byte[] firstLevelHash = firstLevelHash(request.getIdentity());
    Instant at =
        deadlines.bound(
            () ->
                audit.record(
                    AdminAuthInterceptor.actor(),
                    "RecordOptOut",
                    "identity " + AuditDetails.optOutReference(firstLevelHash),
                    AuditDetails.none(),
                    () -> optOuts.record(firstLevelHash)));
    reply(out, RecordOptOutResponse.newBuilder().setOptedOutMs(at.toEpochMilli()).build());
  }

  @Override
  public void lookupOptOut(LookupOptOutRequest request, StreamObserver<LookupOptOutResponse> out) {
    byte[] firstLevelHash = firstLevelHash(request.getIdentity());
    Optional<Instant> at = deadlines.bound(() -> optOuts.lookup(firstLevelHash));
    reply(
        out,
        LookupOptOutResponse.newBuilder()
            .setOptedOut(at.isPresent())
            .setOptedOutMs(at.map(Instant::toEpochMilli).orElse(0L))
            .build());
  }

  @Override
  public void listSites(ListSitesRequest request, StreamObserver<ListSitesResponse> out) {
    ListSitesResponse.Builder response = ListSitesResponse.newBuilder();
    sites.directory().all().forEach(s -> response.addSites(SiteMessages.site(s)));
    reply(out, response.build());
  }

  @Override
  public void updateSite(UpdateSiteRequest request, StreamObserver<UpdateSiteResponse> out) {
    Optional<Collection<String>> names =
        request.hasDomainNames()
            ? Optional.of(request.getDomainNames().getNamesList())
            : Optional.empty();
    Optional<Set<ParticipantType>> types =
        request.hasTypes()
            ? Optional.of(SiteMessages.types(request.getTypes().getTypesList()))
            : Optional.empty();
    if (names.isEmpty() && types.isEmpty()) {
      throw VeilException.clientError("give domain_names, types or both");
    }
    AuditDetails details = AuditDetails.of();
    names.ifPresent(n -> details.put("domain_names", n));
    types.ifPresent(t -> details.put("types", new TreeSet<>(t)));
    Site site =
        deadlines.bound(
            () ->
                audit.record(
                    AdminAuthInterceptor.actor(),
                    "UpdateSite",
                    "site " + request.getSiteId(),
                    details.json(),
                    () -> sites.update(request.getSiteId(), names, types)));
    reply(out, UpdateSiteResponse.newBuilder().setSite(SiteMessages.site(site)).build());
  }

  @Override
  public void setSiteSharing(
      SetSiteSharingRequest request, StreamObserver<SetSiteSharingResponse> out) {
    Optional<Sharing> sharing = SiteMessages.sharing(request);
    String details =
        request.getResetToDefault()
            ? AuditDetails.of().put("reset_to_default", true).json()
            : AuditDetails.of()
                .put("allowed_sites", request.getAllowedSitesList())
                .put("allowed_types", request.getAllowedTypesList())
                .json();
    Site site =
        deadlines.bound(
            () ->
                audit.record(
                    AdminAuthInterceptor.actor(),
                    "SetSiteSharing",
                    "site " + request.getSiteId(),
                    details,
                    () -> sites.setSharing(request.getSiteId(), sharing)));
    reply(out, SetSiteSharingResponse.newBuilder().setSite(SiteMessages.site(site)).build());
  }

  @Override
  public void registerWebhook(
      RegisterWebhookRequest request, StreamObserver<RegisterWebhookResponse> out) {
    WebhookService.Created created =
        deadlines.<WebhookService.Created>bound(
            () ->
                audit.recordCreation(
                    AdminAuthInterceptor.actor(),
                    "RegisterWebhook",
                    "webhook",
                    AuditDetails.of()
                        .put("client_id", request.getClientId())
                        .put("host", urlHost(request.getUrl()))
                        .json(),
                    () -> webhooks.register(request.getClientId(), request.getUrl())));
    reply(
        out,
        RegisterWebhookResponse.newBuilder()
            .setWebhook(WebhookMessages.created(created))
            .setSecret(created.secret().reveal())
            .build());
  }

  @Override
  public void listWebhooks(ListWebhooksRequest request, StreamObserver<ListWebhooksResponse> out) {
    ListWebhooksResponse.Builder response = ListWebhooksResponse.newBuilder();
    deadlines.bound(webhooks::list).forEach(w -> response.addWebhooks(WebhookMessages.webhook(w)));
    reply(out, response.build());
  }

  @Override
  public void deleteWebhook(
      DeleteWebhookRequest request, StreamObserver<DeleteWebhookResponse> out) {
    deadlines.bound(
        () ->
            audit.record(
                AdminAuthInterceptor.actor(),
                "DeleteWebhook",
                "webhook " + request.getWebhookId(),
                AuditDetails.none(),
                () -> webhooks.delete(request.getWebhookId())));
    reply(out, DeleteWebhookResponse.getDefaultInstance());
  }

  @Override
  public void listAuditEvents(
      ListAuditEventsRequest request, StreamObserver<ListAuditEventsResponse> out) {
    int size = request.getPageSize() == 0 ? 100 : request.getPageSize();
    if (size < 1 || size > 1000) {
      throw VeilException.clientError("page_size must be 0 to 1000");
    }
    Long before = null;
    if (!request.getPageToken().isEmpty()) {
      try {
        before = Long.parseLong(request.getPageToken());
      } catch (NumberFormatException e) {
        throw VeilException.clientError("page_token: not a token this server gave");
      }
      if (before < 1) {
        throw VeilException.clientError("page_token: not a token this server gave");
      }
    }
    if (request.getFromMs() < 0 || request.getUntilMs() < 0) {
      throw VeilException.clientError("from_ms and until_ms must not be negative");
    }
    AuditFilter filter =
        new AuditFilter(
            request.getActorClientId() == 0 ? null : request.getActorClientId(),
            request.getAction().isEmpty() ? null : request.getAction(),
            request.getTarget().isEmpty() ? null : request.getTarget(),
            request.getFromMs() == 0 ? null : Instant.ofEpochMilli(request.getFromMs()),
            request.getUntilMs() == 0 ? null : Instant.ofEpochMilli(request.getUntilMs()),
            before);
    List<AuditEvent> page = deadlines.bound(() -> audit.list(filter, size + 1));
    ListAuditEventsResponse.Builder response = ListAuditEventsResponse.newBuilder();
    page.stream().limit(size).forEach(e -> response.addEvents(AdminMessages.auditEvent(e)));
    if (page.size() > size) {
      response.setNextPageToken(Long.toString(page.get(size - 1).id()));
    }
    reply(out, response.build());
  }

  /** The host of a webhook URL (its path and query may hold a receiver's token), or "". */
  private static String urlHost(String url) {
    try {
      String host = java.net.URI.create(url.strip()).getHost();
      return host == null ? "" : host;
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  private byte[] firstLevelHash(Identity identity) {
    AdminMessages.IdentityValue id = AdminMessages.identity(identity);
    return mapper.firstLevelHash(IdentityHash.parse(id.input(), id.value()));
  }

  private static <T> void reply(StreamObserver<T> out, T response) {
    out.onNext(response);
    out.onCompleted();
  }
}
