/**
 * Identity mapping: from a normalized identity hash to first-level hash, bucket and advertising id
 * ({@link dev.veil.identity.IdentityMapper}), and the map operations of the public API with opt-out
 * applied ({@link dev.veil.identity.IdentityMapService}).
 */
package dev.veil.identity;
