package dev.veil.server;

import dev.veil.client.ApiKeyAuthenticator;
import dev.veil.client.ClientService;
import dev.veil.config.VeilConfig;
import dev.veil.identity.IdentityMapService;
import dev.veil.identity.IdentityMapper;
import dev.veil.key.KeyService;
import dev.veil.optout.OptOutService;
import dev.veil.salt.SaltService;
import dev.veil.token.TestIdentities;
import dev.veil.token.TokenService;
import java.time.Clock;

/**
 * The domain services of one running node, built by {@link VeilServer} (the composition root) and
 * handed to the HTTP and gRPC adapters. Adapters only translate between wire formats and these.
 */
public record Services(
    VeilConfig config,
    Clock clock,
    KeyService keys,
    SaltService salts,
    OptOutService optOuts,
    ClientService clients,
    ApiKeyAuthenticator authenticator,
    IdentityMapper mapper,
    IdentityMapService mapping,
    TokenService tokens,
    TestIdentities testIdentities,
    Readiness readiness) {}
