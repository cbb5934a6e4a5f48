package dev.veil.client;

import java.time.Instant;
import java.util.Set;

/** A caller of the API: one client, one current API key. Immutable. */
public record ApiClient(
    long id,
    String name,
    int siteId,
    Set<Role> roles,
    boolean enabled,
    Instant created,
    ApiKeyDigest key) {

  public ApiClient {
    roles = Set.copyOf(roles);
  }

  public boolean has(Role role) {
    return enabled && roles.contains(role);
  }
}
