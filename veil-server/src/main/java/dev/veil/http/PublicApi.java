package dev.veil.http;

import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.identity.IdentityMapService;
import dev.veil.identity.IdentityMapper;
import dev.veil.key.KeyService;
import dev.veil.observability.Readiness;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltService;
import dev.veil.site.SharingPolicy;
import dev.veil.site.SiteService;
import dev.veil.token.TokenService;
import java.time.Clock;

/**
 * What the public HTTP API answers from: exactly the domain services its routes call, and nothing
 * else of the node. The composition root builds it; {@link PublicHttpServer} hands each route the
 * ones it uses.
 *
 * @param tokens {@code /v1/token/generate}, {@code refresh} and {@code validate}
 * @param mapping {@code /v1/identity/map}
 * @param salts {@code /v1/identity/buckets}
 * @param mapper {@code /v1/optout}: turns the identity into the hash that is recorded
 * @param optOuts {@code /v1/optout}
 * @param keys {@code /v1/key/latest}, {@code /v2/key/sharing} and {@code /v2/key/bidstream}
 * @param sites which keys each caller of the key endpoints receives, and the sites' names
 * @param sharing the limits the v2 key endpoints announce
 * @param authenticator every route that takes an API key
 * @param readiness {@code /ops/readyz}
 * @param clock the rate limit's windows and the keys' lifetimes
 */
public record PublicApi(
    TokenService tokens,
    IdentityMapService mapping,
    SaltService salts,
    IdentityMapper mapper,
    OptOutService optOuts,
    KeyService keys,
    SiteService sites,
    SharingPolicy sharing,
    ApiKeyAuthenticator authenticator,
    Readiness readiness,
    Clock clock) {}
