/**
 * The Veil Java client: everything a publisher, a data collector or a bidder needs to use a Veil
 * server from Java.
 *
 * <h2>Start here</h2>
 *
 * <p>Build one {@link dev.veil.sdk.VeilClient} per server and API key (and, for v2, its secret),
 * and take the role clients from it:
 *
 * <table>
 *   <caption>Roles and their clients</caption>
 *   <tr><th>who</th><th>client</th><th>API key role</th></tr>
 *   <tr><td>publisher (server side)</td><td>{@link dev.veil.sdk.PublisherClient}: generate,
 *       refresh</td><td>{@code GENERATOR}</td></tr>
 *   <tr><td>data collector</td><td>{@link dev.veil.sdk.IdentityMapClient}: map, rotated buckets;
 *       {@link dev.veil.sdk.MappingCache}: a durable mapping table re-mapped as salts rotate</td>
 *       <td>{@code MAPPER}</td></tr>
 *   <tr><td>bidder</td><td>{@link dev.veil.sdk.TokenDecryptor}: decrypts advertising tokens
 *       offline; {@link dev.veil.sdk.WebhookVerifier}: verifies the signed opt-out requests Veil
 *       sends to the bidder's webhook and reads the opt-out ({@link dev.veil.sdk.OptOutNotice};
 *       no key, no network call)</td><td>{@code ID_READER}</td></tr>
 * </table>
 *
 * <h2>v1 or v2</h2>
 *
 * <p>Veil serves UID2's v1 API and its v2 API, in which request and answer bodies are encrypted
 * under the client's secret (the one {@code veil admin client create} prints beside the API key).
 * The choice is made once, on the builder: a client given {@link
 * dev.veil.sdk.VeilClient.Builder#clientSecret(String)} speaks v2 where it knows how, one without
 * speaks v1, and nothing else changes that. There is no per-call switch, so one client never mixes
 * the two for a user's identity.
 *
 * <table>
 *   <caption>What each client calls</caption>
 *   <tr><th>client</th><th>without a secret (v1)</th><th>with a secret (v2)</th></tr>
 *   <tr><td>{@link dev.veil.sdk.PublisherClient}</td><td>{@code /v1/token/generate}, {@code
 *       /v1/token/refresh}</td><td>{@code /v2/token/generate} (with {@code optout_check}), {@code
 *       /v2/token/refresh}</td></tr>
 *   <tr><td>{@link dev.veil.sdk.TokenDecryptor}</td><td>{@code GET /v1/key/latest}</td><td>{@code
 *       POST /v2/key/bidstream}, whose rules add checks (below)</td></tr>
 *   <tr><td>{@link dev.veil.sdk.IdentityMapClient}</td>
 *       <td>{@code /v1/identity/map}, {@code /v1/identity/buckets}</td><td>the same: v1</td></tr>
 *   <tr><td>{@link dev.veil.sdk.MappingCache}</td><td>{@code /v1/identity/map}, {@code
 *       /v1/identity/buckets} (re-maps what rotations affect)</td><td>{@code POST
 *       /v3/identity/map} and {@code POST /v2/optout/status} (re-maps what its refresh times say,
 *       removes what opted out)</td></tr>
 * </table>
 *
 * <p>Outcomes do not depend on the API: generate and refresh give the same {@link
 * dev.veil.sdk.TokenOutcome}s over both, and a refusal is the same {@link
 * dev.veil.sdk.VeilApiException}. Two things differ. A v2 identity carries the key its refresh
 * answer is encrypted under ({@link dev.veil.sdk.IdentityTokens#refreshResponseKey()}), so over v2
 * refresh takes the whole identity ({@link
 * dev.veil.sdk.PublisherClient#refresh(dev.veil.sdk.IdentityTokens)}); keep the key wherever you
 * keep the identity ({@link dev.veil.sdk.IdentityTokens#toJson()} does). And a decryptor with v2
 * keys applies the server's rules for bidders: a site key the server did not give this bidder is
 * {@link dev.veil.sdk.DecryptionStatus#NOT_AUTHORIZED_FOR_KEY}, a token whose lifetime or creation
 * time breaks the server's limits {@link dev.veil.sdk.DecryptionStatus#INVALID_TOKEN_LIFETIME}, and
 * {@link dev.veil.sdk.TokenDecryptor#decrypt(String, String)} checks the bid request's domain or
 * app name against the site's list, which only the v2 key answer carries.
 *
 * <p>The secret is held as a key object: no method, exception message or {@code toString()} shows
 * it. Requests over v2 carry the client's clock; the server refuses one more than about two minutes
 * off its own.
 *
 * <h2>Identifiers and privacy</h2>
 *
 * <p>An {@link dev.veil.sdk.Identifier} is an email, a phone number or the hash of either. Emails
 * and phones are normalized and hashed with the same code (and the same golden test vectors) as the
 * server: {@link dev.veil.sdk.Identifier#hashed()}, or {@link
 * dev.veil.sdk.VeilClient.Builder#hashIdentifiers(boolean)} for every request, keeps raw PII on the
 * caller's side. Requests carry identifiers and tokens in JSON bodies, never in URLs. No type's
 * {@code toString()} shows an identifier, token or key.
 *
 * <h2>Outcomes and failures</h2>
 *
 * <p>Expected outcomes are values: {@link dev.veil.sdk.TokenOutcome} (issued, opted out, invalid,
 * expired), {@link dev.veil.sdk.MapOutcome} (mapped, unmapped), {@link
 * dev.veil.sdk.DecryptionResult}. Failures are one hierarchy, {@link
 * dev.veil.sdk.VeilClientException}: {@link dev.veil.sdk.VeilApiException} when the server refused,
 * {@link dev.veil.sdk.VeilTransportException} when no answer arrived. Transport failures and the
 * answers 429 and 503 are retried with exponential backoff ({@link dev.veil.sdk.RetryPolicy});
 * nothing else is.
 *
 * <h2>Threads</h2>
 *
 * <p>Every client is immutable or internally synchronized, and safe to share. The background work
 * (key refresh, bucket polling) runs on a scheduler that can be injected, as can the clock.
 *
 * <p>Everything under {@code dev.veil.sdk.internal} is implementation and may change without
 * notice.
 */
package dev.veil.sdk;
