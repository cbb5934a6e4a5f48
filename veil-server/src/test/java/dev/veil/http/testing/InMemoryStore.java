package dev.veil.http.testing;

import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyDigest;
import dev.veil.client.ClientStore;
import dev.veil.client.Role;
import dev.veil.common.MetaStore;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyStore;
import dev.veil.optout.OptOut;
import dev.veil.optout.OptOutStore;
import dev.veil.salt.BucketSalt;
import dev.veil.salt.SaltStore;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Every store interface in memory, with one change sequence shared by all of them (as a real store
 * has). Thread-safe through one monitor. The opt-out store can be made to fail ({@link
 * #failOptOutWrites}) or to wait for a latch before writing ({@link #holdOptOutWrites}).
 */
public final class InMemoryStore {
  private long seq;
  private final List<Versioned<EncryptionKey>> keys = new ArrayList<>();
  private final Map<Integer, Versioned<BucketSalt>> salts = new HashMap<>();
  private final Map<ByteBuffer, Versioned<OptOut>> optOuts = new HashMap<>();
  private final Map<Long, Versioned<ApiClient>> clients = new HashMap<>();
  private final Map<String, byte[]> meta = new HashMap<>();
  private volatile boolean failOptOutWrites;
  private volatile CountDownLatch optOutGate;
  private volatile CountDownLatch optOutEntered;

  public void failOptOutWrites(boolean fail) {
    this.failOptOutWrites = fail;
  }

  /**
   * Until {@code gate} opens, opt-out writes wait (they run on worker threads); each write counts
   * {@code entered} down when it starts waiting.
   */
  public void holdOptOutWrites(CountDownLatch gate, CountDownLatch entered) {
    this.optOutEntered = entered;
    this.optOutGate = gate;
  }

  public KeyStore keys() {
    return new KeyStore() {
      @Override
      public List<Versioned<EncryptionKey>> keysAfter(long afterSeq) {
        synchronized (InMemoryStore.this) {
          return keys.stream().filter(v -> v.seq() > afterSeq).toList();
        }
      }

      @Override
      public Versioned<EncryptionKey> insert(int siteId, Instant created, Instant activates, Instant expires,
          byte[] secret) {
        synchronized (InMemoryStore.this) {
          EncryptionKey key = new EncryptionKey(keys.size() + 1, siteId, created, activates, expires, secret);
          Versioned<EncryptionKey> stored = new Versioned<>(++seq, key);
          keys.add(stored);
          return stored;
        }
      }
    };
  }

  public SaltStore salts() {
    return new SaltStore() {
      @Override
      public long forEachAfter(long afterSeq, Consumer<Versioned<BucketSalt>> sink) {
        List<Versioned<BucketSalt>> rows;
        synchronized (InMemoryStore.this) {
          rows = salts.values().stream().filter(v -> v.seq() > afterSeq)
              .sorted(Comparator.comparingLong(Versioned::seq)).toList();
        }
        rows.forEach(sink);
        return rows.isEmpty() ? afterSeq : rows.get(rows.size() - 1).seq();
      }

      @Override
      public void saveRotations(List<BucketSalt> rotations) {
        synchronized (InMemoryStore.this) {
          long at = ++seq;
          rotations.forEach(r -> salts.put(r.bucketIndex(), new Versioned<>(at, r)));
        }
      }
    };
  }

  public OptOutStore optOuts() {
    return new OptOutStore() {
      @Override
      public Versioned<OptOut> record(byte[] firstLevelHash, Instant optedOutAt) {
        CountDownLatch gate = optOutGate;
        if (gate != null) {
          optOutEntered.countDown();
          try {
            if (!gate.await(30, TimeUnit.SECONDS)) {
              throw new StoreUnavailableException("test gate never opened", null);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted", e);
          }
        }
        if (failOptOutWrites) {
          throw new StoreUnavailableException("store down (test)", null);
        }
        synchronized (InMemoryStore.this) {
          return optOuts.computeIfAbsent(ByteBuffer.wrap(firstLevelHash.clone()),
              k -> new Versioned<>(++seq, new OptOut(firstLevelHash.clone(), optedOutAt)));
        }
      }

      @Override
      public Optional<OptOut> find(byte[] firstLevelHash) {
        synchronized (InMemoryStore.this) {
          return Optional.ofNullable(optOuts.get(ByteBuffer.wrap(firstLevelHash))).map(Versioned::value);
        }
      }

      @Override
      public long forEachAfter(long afterSeq, Consumer<Versioned<OptOut>> sink) {
        List<Versioned<OptOut>> rows;
        synchronized (InMemoryStore.this) {
          rows = optOuts.values().stream().filter(v -> v.seq() > afterSeq)
              .sorted(Comparator.comparingLong(Versioned::seq)).toList();
        }
        rows.forEach(sink);
        return rows.isEmpty() ? afterSeq : rows.get(rows.size() - 1).seq();
      }
    };
  }

  public ClientStore clients() {
    return new ClientStore() {
      @Override
      public List<Versioned<ApiClient>> clientsAfter(long afterSeq) {
        synchronized (InMemoryStore.this) {
          return clients.values().stream().filter(v -> v.seq() > afterSeq)
              .sorted(Comparator.comparingLong(Versioned::seq)).toList();
        }
      }

      @Override
      public Versioned<ApiClient> insert(String name, int siteId, Set<Role> roles, boolean enabled, Instant created,
          ApiKeyDigest key) {
        synchronized (InMemoryStore.this) {
          long id = clients.size() + 1;
          ApiClient client = new ApiClient(id, name, siteId == 0 ? (int) id : siteId, roles, enabled, created, key);
          Versioned<ApiClient> stored = new Versioned<>(++seq, client);
          clients.put(id, stored);
          return stored;
        }
      }

      @Override
      public Optional<Versioned<ApiClient>> update(ApiClient client) {
        synchronized (InMemoryStore.this) {
          if (!clients.containsKey(client.id())) {
            return Optional.empty();
          }
          Versioned<ApiClient> stored = new Versioned<>(++seq, client);
          clients.put(client.id(), stored);
          return Optional.of(stored);
        }
      }
    };
  }

  public MetaStore meta() {
    return new MetaStore() {
      @Override
      public Optional<byte[]> get(String name) {
        synchronized (InMemoryStore.this) {
          return Optional.ofNullable(meta.get(name)).map(byte[]::clone);
        }
      }

      @Override
      public byte[] putIfAbsent(String name, byte[] value) {
        synchronized (InMemoryStore.this) {
          return meta.computeIfAbsent(name, n -> value.clone()).clone();
        }
      }

      @Override
      public boolean compareAndSet(String name, byte[] expected, byte[] update) {
        synchronized (InMemoryStore.this) {
          byte[] current = meta.get(name);
          if (expected == null ? current != null : !Arrays.equals(expected, current)) {
            return false;
          }
          meta.put(name, update.clone());
          return true;
        }
      }
    };
  }
}
