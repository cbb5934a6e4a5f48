/**
 * Implementation of the client; not API. The seams: {@link dev.veil.sdk.internal.Transport} (one
 * HTTP exchange; {@link dev.veil.sdk.internal.HttpTransport} over the JDK client), {@link
 * dev.veil.sdk.internal.ApiCaller} (retries and the error contract), the wire formats ({@link
 * dev.veil.sdk.internal.Envelopes}, {@link dev.veil.sdk.internal.MapJson}, {@link
 * dev.veil.sdk.internal.BucketJson}, {@link dev.veil.sdk.internal.KeyJson}; Jackson streaming) and
 * the mapping cache's SQLite file ({@link dev.veil.sdk.internal.MappingStore}: tables and queries;
 * {@link dev.veil.sdk.internal.RotationLoad}: a poll's marks; {@code CacheFile}: connections,
 * locks, transactions).
 */
package dev.veil.sdk.internal;
