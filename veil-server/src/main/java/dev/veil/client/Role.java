package dev.veil.client;

/** What an API key may do. */
public enum Role {
  /** {@code /v1/token/generate}. */
  GENERATOR,
  /** {@code /v1/identity/map} and {@code /v1/identity/buckets}. */
  MAPPER,
  /** {@code /v1/optout}. */
  OPTOUT,
  /**
   * {@code /v1/key/latest} and {@code /v2/key/bidstream}: key distribution to bidders (also {@code
   * /v2/key/sharing}).
   */
  ID_READER,
  /** {@code /v2/key/sharing}: encrypting raw ids into tokens for permitted receivers. */
  SHARER,
  /** The admin gRPC API. */
  ADMIN
}
