/**
 * The public HTTP/JSON API (docs/spec.md section 1) on Vert.x core. Where to look:
 *
 * <ol>
 *   <li>{@link dev.veil.http.PublicHttpServer}: the entry point; binds one listener per event loop
 *       with the protocol limits (header size, header and idle timeouts) and stops gracefully. Each
 *       connection decodes requests with {@link dev.veil.http.StrictRequestDecoder}, which refuses
 *       versions other than HTTP/1.1 and 1.0 and chunk sizes too large to read.
 *   <li>{@code RequestDispatcher}: where every request enters; its route table lists each path, who
 *       may call it and which class answers. It applies CORS, authentication, roles and the rate
 *       limit, and reads parameters from the query ({@code QueryString}) or a JSON body ({@code
 *       BodyReader} enforces the size limit while reading, {@code JsonBodies} the JSON limits).
 *   <li>Endpoints translate parameters into domain calls and outcomes into answers: {@code
 *       TokenEndpoints}, {@code IdentityMapEndpoints} (batch: {@code MapBatchRequest} reads the
 *       body and hands each identifier to {@code MapBatchAnswer}, which maps and writes it), {@code
 *       BucketsEndpoint} ({@code BucketStream} streams one chunk at a time within the node's {@code
 *       StreamBudget}, each chunk as JSON or, for v2, sealed by {@code SealedChunkEncoding}),
 *       {@code OptOutEndpoint} (the only blocking call, on a worker), {@code KeyLatestEndpoint},
 *       {@code OpsEndpoints}, {@code SdkScriptEndpoint} (the browser SDK file, {@link
 *       dev.veil.http.SdkScript}, at {@code /static/veil-sdk.js} and under its versioned name).
 *   <li>{@code Exchange} carries one request and is the only way to answer, so {@code
 *       RequestObserver} sees each answer once (metrics, access log). {@code JsonBytes} writes the
 *       hot answers (token pairs, identity maps) by hand; {@code Envelope} writes every other JSON
 *       answer with Jackson's streaming generator; {@code ErrorResponses} is the one place that
 *       maps refusals to HTTP status and {@code status} word.
 * </ol>
 *
 * <p>A new rule for an existing endpoint goes into its endpoint class; a new error kind into {@code
 * ErrorResponses}; a new path into the route table. Decisions where the specification is silent are
 * listed in {@code docs/http-api.md}.
 */
package dev.veil.http;
