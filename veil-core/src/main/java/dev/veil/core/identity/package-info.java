/**
 * Identities: how a caller names a person, and the hash that every identity operation starts from.
 *
 * <ul>
 *   <li>{@link dev.veil.core.identity.IdentityType}: email or phone; its prefix byte starts every
 *       token.
 *   <li>{@link dev.veil.core.identity.IdentityInput}: the four request parameters ({@code email},
 *       {@code email_hash}, {@code phone}, {@code phone_hash}).
 *   <li>{@link dev.veil.core.identity.EmailNormalizer}, {@link
 *       dev.veil.core.identity.PhoneNormalizer}: the normalization rules of docs/spec.md section 2;
 *       to change a rule, change these classes and the golden vectors.
 *   <li>{@link dev.veil.core.identity.IdentityHash}: parses a request value (normalize and hash, or
 *       decode a given hash) into a 32-byte SHA-256 value with constant-time equality.
 *   <li>{@link dev.veil.core.identity.InvalidIdentifierException}: the one failure, which never
 *       carries the input.
 * </ul>
 *
 * <p>Everything here is immutable or stateless, and thread-safe.
 */
package dev.veil.core.identity;
