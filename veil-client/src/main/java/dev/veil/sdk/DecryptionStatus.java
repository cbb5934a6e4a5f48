package dev.veil.sdk;

/**
 * Whether {@link TokenDecryptor#decrypt} could read a token, and if not, why. The last four come
 * only from a decryptor whose keys came over v2 ({@code /v2/key/bidstream}), and carry the names of
 * UID2's bidder SDKs; over v2 an unknown key is one of the two {@code NOT_AUTHORIZED} statuses,
 * never {@link #UNKNOWN_KEY}.
 */
public enum DecryptionStatus {
  /** Decrypted and unexpired, and over v2 within the server's limits. */
  SUCCESS,
  /** Decrypted, but past its expiry; or the key that encrypted it has expired. Do not use it. */
  EXPIRED,
  /**
   * An authentication check failed: the token was altered, cut, spliced, or not issued by this
   * Veil. Never use it.
   */
  TAMPERED,
  /** Not an advertising token at all: wrong length, alphabet or identity prefix. */
  MALFORMED,
  /** An advertising token of another format version. */
  UNSUPPORTED_VERSION,
  /**
   * Over v1: the token names a key this decryptor does not have: issued under a key newer than the
   * last key refresh (a refresh is started), or forged.
   */
  UNKNOWN_KEY,
  /** The decryptor holds no keys yet: call {@link TokenDecryptor#start()} first. */
  NOT_READY,
  /**
   * Over v2: the token's master key (outer layer) is not among the keys the server gave: a key
   * newer than the last refresh (a refresh is started), one deleted long after it expired, or a
   * bidder the server no longer serves.
   */
  NOT_AUTHORIZED_FOR_MASTER_KEY,
  /**
   * Over v2: the token's site key (inner layer) is not among the keys the server gave: the site
   * does not share its tokens with this bidder, or the key is newer than the last refresh (a
   * refresh is started).
   */
  NOT_AUTHORIZED_FOR_KEY,
  /**
   * Over v2: the token's own times break the server's limits: it lives longer from creation to
   * expiry than {@code max_bidstream_lifetime_seconds}, or it was created further ahead of the
   * decryptor's clock than {@code allow_clock_skew_seconds}.
   */
  INVALID_TOKEN_LIFETIME,
  /**
   * {@link TokenDecryptor#decrypt(String, String)} only: the token's site does not list the domain
   * or app name of the bid request (or no names are known: keys fetched over v1).
   */
  DOMAIN_OR_APP_NAME_CHECK_FAILED
}
