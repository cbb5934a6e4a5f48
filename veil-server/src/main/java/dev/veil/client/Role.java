package dev.veil.client;

/**
 * What an API key may do. The first five are public API roles; the rest are operator roles of the
 * admin gRPC API (and the console), each covering a group of {@link AdminAction}s. {@link #ADMIN}
 * holds every operator role. The order is the order of listings.
 */
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
  /** Every operator role below, and the only one that may grant {@code ADMIN}. */
  ADMIN,
  /** API clients: create (granting roles), list, enable, disable, rotate keys and secrets. */
  CLIENT_ADMIN,
  /** Encryption keys and salt buckets: status and rotation. */
  KEY_ADMIN,
  /** Opt-outs through the admin API: record and look up. */
  OPTOUT_ADMIN,
  /** Sites (domains, participant types), keyset sharing, and opt-out webhooks. */
  SHARING_ADMIN,
  /** Deductions: list and read. */
  DEDUCTION_READER,
  /** Deductions: create, open and close. */
  DEDUCTION_WRITER,
  /** The audit trail: list. */
  AUDIT_READER;

  /** Whether this is an operator role (of the admin API) rather than a public API role. */
  public boolean isOperatorRole() {
    return switch (this) {
      case GENERATOR, MAPPER, OPTOUT, ID_READER, SHARER -> false;
      case ADMIN,
          CLIENT_ADMIN,
          KEY_ADMIN,
          OPTOUT_ADMIN,
          SHARING_ADMIN,
          DEDUCTION_READER,
          DEDUCTION_WRITER,
          AUDIT_READER ->
          true;
    };
  }
}
