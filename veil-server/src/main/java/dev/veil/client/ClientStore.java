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
   * Inserts a client; the store assigns its id. A {@code siteId} of 0 gives the client a site id of
   * its own: its id when no client and no keyset has that site id yet, otherwise the next higher
   * site id that none has. That holds with any number of nodes inserting at once; a site id given
   * explicitly (positive) is stored as it is, so several clients can share a site on purpose.
   */
  Versioned<ApiClient> insert(
      String name,
      int siteId,
      Set<Role> roles,
      boolean enabled,
      Instant created,
      ApiKeyDigest key,
      ClientSecret secret);

  /** Replaces the stored state of the client with the same id; empty if there is none. */
  Optional<Versioned<ApiClient>> update(ApiClient client);
}
