package dev.veil.client;

import dev.veil.common.Versioned;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Durable storage of API clients. Thread-safe; writes are durable on return. */
public interface ClientStore {
  /** Clients written (inserted or updated) after {@code afterSeq}, ascending, latest state only. */
  List<Versioned<ApiClient>> clientsAfter(long afterSeq);

  /**
   * Inserts a client; the store assigns its id. A {@code siteId} of 0 means "use the new client's id
   * as its site id".
   */
  Versioned<ApiClient> insert(
      String name, int siteId, Set<Role> roles, boolean enabled, Instant created, ApiKeyDigest key);

  /** Replaces the stored state of the client with the same id; empty if there is none. */
  Optional<Versioned<ApiClient>> update(ApiClient client);
}
