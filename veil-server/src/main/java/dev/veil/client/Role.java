package dev.veil.client;

/** What an API key may do. */
public enum Role {
  /** {@code /v1/token/generate}. */
  GENERATOR,
  /** {@code /v1/identity/map} and {@code /v1/identity/buckets}. */
  MAPPER,
  /** {@code /v1/optout}. */
  OPTOUT,
  /** {@code /v1/key/latest}: key distribution to bidders. */
  ID_READER,
  /** The admin gRPC API. */
  ADMIN
}
