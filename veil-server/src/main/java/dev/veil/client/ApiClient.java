package dev.veil.client;

import java.time.Instant;
import java.util.Set;

/**
 * A caller of the API: one client, one current API key and one secret. Immutable.
 *
 * @param secret the key of the client's v2 envelopes; null only for a client stored by a release
 *     without secrets, until a node's start gives it one ({@link ClientService#ensureSecrets})
 */
public record ApiClient(
    long id,
    String name,
    int siteId,
    Set<Role> roles,
    boolean enabled,
    Instant created,
    ApiKeyDigest key,
    ClientSecret secret) {

  public ApiClient {
    roles = Set.copyOf(roles);
  }

  /**
   * Whether this client is enabled and holds {@code role}: given it, or, for an {@linkplain
   * Role#isOperatorRole operator role}, given {@link Role#ADMIN}.
   */
  public boolean has(Role role) {
    return enabled && holds(role);
  }

  /** {@link #has} regardless of whether the client is enabled. */
  public boolean holds(Role role) {
    return roles.contains(role) || (role.isOperatorRole() && roles.contains(Role.ADMIN));
  }

  /** Whether this client holds at least one operator role (may use the admin API at all). */
  public boolean isOperator() {
    return roles.stream().anyMatch(Role::isOperatorRole);
  }
}
