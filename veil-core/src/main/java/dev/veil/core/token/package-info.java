/**
 * Tokens and the keys that protect them. The byte layouts are documented in {@code
 * docs/token-format.md} and fixed by {@code src/test/resources/golden/vectors.json}.
 *
 * <ul>
 *   <li>{@link dev.veil.core.token.AdvertisingTokenCodec}: advertising tokens (UID2 "V4" layout,
 *       base64url), double-encrypted under a master key and a site key.
 *   <li>{@link dev.veil.core.token.RefreshTokenCodec}: refresh tokens (UID2 "V3" refresh layout,
 *       standard base64), encrypted under a refresh key.
 *   <li>{@link dev.veil.core.token.AdvertisingTokenPayload}, {@link
 *       dev.veil.core.token.RefreshTokenPayload}, {@link dev.veil.core.token.OperatorInfo}, {@link
 *       dev.veil.core.token.PublisherInfo}: what the tokens carry.
 *   <li>{@link dev.veil.core.token.EncryptionKey}, {@link dev.veil.core.token.KeyLookup}: keys and
 *       how a codec finds one by id.
 *   <li>{@link dev.veil.core.token.InvalidTokenException}: the one decoding failure, with a reason.
 * </ul>
 *
 * <p>Codecs never read a clock: token expiry and key lifetimes are the caller's decisions. The
 * package-private classes hold what both formats share: the clear header ({@code TokenHeader}), one
 * encrypted segment ({@code GcmSegment}) and strict base64 ({@code TokenText}). Advertising tokens
 * use no AAD, so that UID2's own bidder SDKs can read them; refresh tokens authenticate their
 * header as AAD.
 */
package dev.veil.core.token;
