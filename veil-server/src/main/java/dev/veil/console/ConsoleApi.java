package dev.veil.console;

import dev.veil.audit.AuditLog;
import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.ClientService;
import dev.veil.deduction.DeductionService;
import dev.veil.identity.IdentityMapper;
import dev.veil.key.KeyService;
import dev.veil.observability.Metrics;
import dev.veil.observability.Readiness;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltService;
import dev.veil.site.SiteService;
import dev.veil.webhook.WebhookService;
import java.time.Clock;
import java.time.Duration;

/**
 * What the console calls, and nothing else: the same domain services the admin gRPC API calls (so
 * there is no second path to the store), the authenticator of API keys, and the node's readiness
 * and metrics for its overview.
 *
 * @param mapper turns an identity given for an opt-out into its first-level hash
 * @param storeTimeout {@code db.timeout}: how long after its arrival a request's store work may run
 */
public record ConsoleApi(
    ApiKeyAuthenticator authenticator,
    ClientService clients,
    KeyService keys,
    SaltService salts,
    OptOutService optOuts,
    SiteService sites,
    WebhookService webhooks,
    IdentityMapper mapper,
    DeductionService deductions,
    AuditLog audit,
    Readiness readiness,
    Metrics metrics,
    Clock clock,
    Duration storeTimeout) {}
