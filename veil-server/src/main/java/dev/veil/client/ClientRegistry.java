package dev.veil.client;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** An immutable snapshot of every API client, indexed by id and by key id. */
public final class ClientRegistry {
  private final Map<Long, ApiClient> byId;
  private final Map<String, ApiClient> byKeyId;

  private ClientRegistry(Map<Long, ApiClient> byId) {
    this.byId = Map.copyOf(byId);
    Map<String, ApiClient> keys = new HashMap<>();
    for (ApiClient c : byId.values()) {
      keys.put(c.key().keyId(), c);
    }
    this.byKeyId = Map.copyOf(keys);
  }

  public static ClientRegistry empty() {
    return new ClientRegistry(Map.of());
  }

  /** A new registry with {@code changed} clients replacing those of the same id. */
  public ClientRegistry with(Collection<ApiClient> changed) {
    if (changed.isEmpty()) {
      return this;
    }
    Map<Long, ApiClient> next = new HashMap<>(byId);
    for (ApiClient c : changed) {
      next.put(c.id(), c);
    }
    return new ClientRegistry(next);
  }

  public ApiClient byKeyId(String keyId) {
    return byKeyId.get(keyId);
  }

  public ApiClient byId(long id) {
    return byId.get(id);
  }

  public List<ApiClient> all() {
    return byId.values().stream().sorted(Comparator.comparingLong(ApiClient::id)).toList();
  }

  public int size() {
    return byId.size();
  }
}
