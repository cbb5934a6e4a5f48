package dev.veil.sdk;

/** Whether {@link TokenDecryptor#decrypt} could read a token, and if not, why. */
public enum DecryptionStatus {
  /** Decrypted and unexpired. */
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
   * The token names a key this decryptor does not have: issued under a key newer than the last key
   * refresh (a refresh is started), or forged.
   */
  UNKNOWN_KEY,
  /** The decryptor holds no keys yet: call {@link TokenDecryptor#start()} first. */
  NOT_READY
}
