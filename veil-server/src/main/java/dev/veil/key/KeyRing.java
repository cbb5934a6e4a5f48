package dev.veil.key;

import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.KeyLookup;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable snapshot of every known encryption key, published by {@link KeyService} through an
 * atomic reference. Requests read it without locks.
 *
 * <p>Selection rule: a keyset (all keys of one site id) encrypts with its newest key that is active
 * now (greatest {@code activates}, then greatest id); any key that has not expired decrypts.
 */
public final class KeyRing implements KeyLookup {
  private static final Comparator<EncryptionKey> NEWEST_FIRST =
      Comparator.comparing(EncryptionKey::activates).thenComparingInt(EncryptionKey::id).reversed();

  private final Map<Integer, EncryptionKey> byId;
  private final Map<Integer, List<EncryptionKey>> bySite;

  private KeyRing(Map<Integer, EncryptionKey> byId) {
    this.byId = Map.copyOf(byId);
    Map<Integer, List<EncryptionKey>> sites = new HashMap<>();
    for (EncryptionKey key : byId.values()) {
      sites.computeIfAbsent(key.siteId(), s -> new ArrayList<>()).add(key);
    }
    sites.values().forEach(list -> list.sort(NEWEST_FIRST));
    Map<Integer, List<EncryptionKey>> frozen = new HashMap<>();
    sites.forEach((site, list) -> frozen.put(site, List.copyOf(list)));
    this.bySite = Map.copyOf(frozen);
  }

  public static KeyRing empty() {
    return new KeyRing(Map.of());
  }

  /** A new ring holding this ring's keys plus {@code added} (same id replaces). */
  public KeyRing with(Collection<EncryptionKey> added) {
    if (added.isEmpty()) {
      return this;
    }
    Map<Integer, EncryptionKey> next = new HashMap<>(byId);
    for (EncryptionKey key : added) {
      next.put(key.id(), key);
    }
    return new KeyRing(next);
  }

  @Override
  public EncryptionKey byId(int keyId) {
    return byId.get(keyId);
  }

  /** The key that encrypts for {@code siteId} at {@code now}, if the keyset has an active key. */
  public Optional<EncryptionKey> activeKey(int siteId, Instant now) {
    for (EncryptionKey key : bySite.getOrDefault(siteId, List.of())) {
      if (key.isActive(now)) {
        return Optional.of(key);
      }
    }
    return Optional.empty();
  }

  /** The newest key of a keyset regardless of activation, if any (drives rotation). */
  public Optional<EncryptionKey> newestKey(int siteId) {
    List<EncryptionKey> keys = bySite.getOrDefault(siteId, List.of());
    return keys.isEmpty() ? Optional.empty() : Optional.of(keys.get(0));
  }

  /** Every site id that has a keyset. */
  public Collection<Integer> siteIds() {
    return bySite.keySet();
  }

  /** Unexpired keys of every keyset except the refresh keyset, ordered by id. */
  public List<EncryptionKey> bidderKeys(Instant now) {
    return byId.values().stream()
        .filter(k -> k.siteId() != EncryptionKey.REFRESH_SITE_ID && !k.isExpired(now))
        .sorted(Comparator.comparingInt(EncryptionKey::id))
        .toList();
  }

  /** Every key, ordered by id (metadata listings; never expose secrets from it). */
  public List<EncryptionKey> all() {
    return byId.values().stream().sorted(Comparator.comparingInt(EncryptionKey::id)).toList();
  }

  public int size() {
    return byId.size();
  }
}
