/**
 * The Veil Java client: everything a publisher, a data collector or a bidder needs to use a Veil
 * server from Java.
 *
 * <h2>Start here</h2>
 *
 * <p>Build one {@link dev.veil.sdk.VeilClient} per server and API key, and take the role clients
 * from it:
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
 *       offline</td><td>{@code ID_READER}</td></tr>
 * </table>
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
