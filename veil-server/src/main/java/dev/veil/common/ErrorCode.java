package dev.veil.common;

/**
 * Every way a request can be refused. Exactly one place maps these to HTTP ({@code
 * dev.veil.http.ErrorResponses}) and one to gRPC.
 */
public enum ErrorCode {
  /** A parameter is missing or malformed: HTTP 400 {@code clienterror}. */
  CLIENT_ERROR,
  /** Missing, unknown or disabled API key, or a key without the role: HTTP 401. */
  UNAUTHORIZED,
  /**
   * Refresh token cannot be decrypted or parsed, authenticated caller: 400 {@code invalid_token}.
   */
  INVALID_TOKEN,
  /** Refresh token past its expiry, authenticated caller: 400 {@code expired_token}. */
  EXPIRED_TOKEN,
  /** Invalid or expired refresh token, unauthenticated caller: 400 {@code error}. */
  REFRESH_ERROR,
  /** An administered object (client, bucket, record) does not exist: gRPC NOT_FOUND, HTTP 404. */
  NOT_FOUND,
  /** Request body over the limit: 413. */
  PAYLOAD_TOO_LARGE,
  /** Rate limit exceeded: 429. */
  RATE_LIMITED,
  /** Not ready or the store is unreachable for a write: 503. */
  UNAVAILABLE,
  /** A server fault: 500. The message never contains input data. */
  INTERNAL
}
