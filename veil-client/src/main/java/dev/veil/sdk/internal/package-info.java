/**
 * Implementation of the client; not API. The seams: {@link dev.veil.sdk.internal.Transport} (one
 * HTTP exchange; {@link dev.veil.sdk.internal.SocketTransport}, HTTP/1.1 on the client's own
 * connections, and {@link dev.veil.sdk.internal.HttpTransport} over the JDK client), {@link
 * dev.veil.sdk.internal.ApiCaller} (retries and the error contract), the wire formats ({@link
 * dev.veil.sdk.internal.Envelopes}, {@link dev.veil.sdk.internal.MapJson} with {@code
 * MapAnswerScanner}, {@link dev.veil.sdk.internal.BucketJson}, {@link
 * dev.veil.sdk.internal.KeyJson}) and batches as bytes ({@link dev.veil.sdk.internal.ValueList},
 * {@link dev.veil.sdk.internal.MapAnswer}). The mapping cache's store is in {@code
 * dev.veil.sdk.internal.cache}.
 */
package dev.veil.sdk.internal;
