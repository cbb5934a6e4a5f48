/**
 * Identity mapping: from a normalized identity hash to first-level hash, bucket and advertising id
 * ({@link dev.veil.identity.IdentityMapper}), and the map operations of the public API with opt-out
 * applied ({@link dev.veil.identity.IdentityMapService}; {@link dev.veil.identity.MapBatch} for the
 * identifiers of one batch request).
 */
package dev.veil.identity;
