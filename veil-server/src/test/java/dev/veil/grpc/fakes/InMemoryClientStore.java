package dev.veil.grpc.fakes;

import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyDigest;
import dev.veil.client.ClientStore;
import dev.veil.client.Role;
import dev.veil.common.Versioned;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

final class InMemoryClientStore implements ClientStore {
  private final StoreFaults faults;
  private final AtomicLong seq;
  private final TreeMap<Long, Versioned<ApiClient>> byId = new TreeMap<>();

  InMemoryClientStore(StoreFaults faults, AtomicLong seq) {
    this.faults = faults;
    this.seq = seq;
  }

  @Override
  public synchronized List<Versioned<ApiClient>> clientsAfter(long afterSeq) {
    faults.check();
    return byId.values().stream()
        .filter(v -> v.seq() > afterSeq)
        .sorted(Comparator.comparingLong(Versioned::seq))
        .toList();
  }

  @Override
  public synchronized Versioned<ApiClient> insert(
      String name, int siteId, Set<Role> roles, boolean enabled, Instant created, ApiKeyDigest key) {
    faults.check();
    long id = byId.isEmpty() ? 1 : byId.lastKey() + 1;
    ApiClient client = new ApiClient(id, name, siteId == 0 ? (int) id : siteId, roles, enabled, created, key);
    Versioned<ApiClient> row = new Versioned<>(seq.incrementAndGet(), client);
    byId.put(id, row);
    return row;
  }

  @Override
  public synchronized Optional<Versioned<ApiClient>> update(ApiClient client) {
    faults.check();
    if (!byId.containsKey(client.id())) {
      return Optional.empty();
    }
    Versioned<ApiClient> row = new Versioned<>(seq.incrementAndGet(), client);
    byId.put(client.id(), row);
    return Optional.of(row);
  }
}
