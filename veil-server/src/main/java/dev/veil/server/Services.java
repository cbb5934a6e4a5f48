package dev.veil.server;

import dev.veil.audit.AuditLog;
import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.ClientService;
import dev.veil.config.VeilConfig;
import dev.veil.console.ConsoleApi;
import dev.veil.deduction.DeductionService;
import dev.veil.grpc.IdentityAdminService;
import dev.veil.http.PublicApi;
import dev.veil.identity.IdentityMapService;
import dev.veil.identity.IdentityMapper;
import dev.veil.key.KeyService;
import dev.veil.observability.Metrics;
import dev.veil.observability.Readiness;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltService;
import dev.veil.site.SiteService;
import dev.veil.token.TestIdentities;
import dev.veil.token.TokenService;
import dev.veil.webhook.WebhookService;
import java.time.Clock;

/**
 * The domain services of one running node, built by {@link ServiceGraph} for {@link VeilServer}
 * (the composition root). No adapter sees this record: each is given only the services it calls
 * ({@link #publicApi()} for the public HTTP API, its constructor's arguments for an admin gRPC
 * service), so the adapters depend on the features and never on the composition root.
 */
public record Services(
    VeilConfig config,
    Clock clock,
    KeyService keys,
    SaltService salts,
    OptOutService optOuts,
    ClientService clients,
    SiteService sites,
    ApiKeyAuthenticator authenticator,
    IdentityMapper mapper,
    IdentityMapService mapping,
    TokenService tokens,
    TestIdentities testIdentities,
    Readiness readiness,
    WebhookService webhooks,
    AuditLog audit) {

  /** What the public HTTP API answers from. */
  public PublicApi publicApi() {
    return new PublicApi(
        tokens,
        mapping,
        salts,
        mapper,
        optOuts,
        keys,
        sites,
        config.sharing(),
        authenticator,
        readiness,
        clock);
  }

  /** What the web console calls: these services, the deductions and the node's metrics. */
  public ConsoleApi consoleApi(DeductionService deductions, Metrics metrics) {
    return new ConsoleApi(
        authenticator,
        clients,
        keys,
        salts,
        optOuts,
        sites,
        webhooks,
        mapper,
        deductions,
        audit,
        readiness,
        metrics,
        clock,
        config.dbTimeout());
  }

  /** {@code IdentityAdminApi} over these services. */
  public IdentityAdminService identityAdmin() {
    return new IdentityAdminService(
        clients, keys, salts, optOuts, sites, webhooks, mapper, audit, clock, config.dbTimeout());
  }
}
