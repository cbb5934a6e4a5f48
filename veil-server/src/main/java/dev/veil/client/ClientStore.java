package dev.veil.client;

import dev.veil.common.ChangeFeed;
import dev.veil.common.Versioned;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * Durable storage of API clients; its {@link ChangeFeed} delivers the latest state of clients
 * inserted or updated by any node. Thread-safe; writes are durable on return.
 */
public interface ClientStore extends ChangeFeed<ApiClient> {
  /**
   * Inserts a client; the store assigns its id. A {@code siteId} of 0 means "use the new client's id
   * as its site id".
   */
  Versioned<ApiClient> insert(
      String name, int siteId, Set<Role> roles, boolean enabled, Instant created, ApiKeyDigest key);

  /** Replaces the stored state of the client with the same id; empty if there is none. */
  Optional<Versioned<ApiClient>> update(ApiClient client);
}
