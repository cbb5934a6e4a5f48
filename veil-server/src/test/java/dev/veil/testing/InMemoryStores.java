package dev.veil.testing;

import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyDigest;
import dev.veil.client.ClientStore;
import dev.veil.client.Role;
import dev.veil.common.JobLock;
import dev.veil.common.MetaStore;
import dev.veil.common.StoreUnavailableException;
import dev.veil.common.Versioned;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyStore;
import dev.veil.optout.OptOut;
import dev.veil.optout.OptOutStore;
import dev.veil.salt.BucketSalt;
import dev.veil.salt.SaltStore;
import dev.veil.storage.Store;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * In-memory fakes of every feature store, sharing one change sequence like a real store. {@link
 * #setDown(boolean)} simulates an outage: every call then throws {@link
 * StoreUnavailableException}. Thread-safe (one lock).
 */
public final class InMemoryStores implements Store {
  private final Object lock = new Object();
  private long seq;
  private volatile boolean down;

  private final TreeMap<Long, EncryptionKey> keys = new TreeMap<>();
  private final Map<Integer, Versioned<BucketSalt>> salts = new HashMap<>();
  private final Map<ByteBuffer, Versioned<OptOut>> optOuts = new HashMap<>();
  private final Map<Long, Versioned<ApiClient>> clients = new HashMap<>();
  private final Map<String, byte[]> meta = new HashMap<>();
  private final Map<String, ReentrantLock> jobLocks = new ConcurrentHashMap<>();
  private int nextKeyId = 1;
  private long nextClientId = 1;

  public void setDown(boolean down) {
    this.down = down;
  }

  private void check() {
    if (down) {
      throw new StoreUnavailableException("store unreachable (simulated)", null);
    }
  }

  @Override
  public KeyStore keys() {
    return new KeyStore() {
      @Override
      public List<Versioned<EncryptionKey>> keysAfter(long afterSeq) {
        synchronized (lock) {
          check();
          List<Versioned<EncryptionKey>> out = new ArrayList<>();
          keys.tailMap(afterSeq, false).forEach((s, k) -> out.add(new Versioned<>(s, k)));
          return out;
        }
      }

      @Override
      public Versioned<EncryptionKey> insert(int siteId, Instant created, Instant activates, Instant expires,
          byte[] secret) {
        synchronized (lock) {
          check();
          EncryptionKey key = new EncryptionKey(nextKeyId++, siteId, created, activates, expires, secret);
          keys.put(++seq, key);
          return new Versioned<>(seq, key);
        }
      }
    };
  }

  @Override
  public SaltStore salts() {
    return new SaltStore() {
      @Override
      public long forEachAfter(long afterSeq, Consumer<Versioned<BucketSalt>> sink) {
        List<Versioned<BucketSalt>> rows;
        synchronized (lock) {
          check();
          rows = salts.values().stream().filter(v -> v.seq() > afterSeq)
              .sorted((a, b) -> Long.compare(a.seq(), b.seq())).toList();
        }
        rows.forEach(sink);
        return rows.isEmpty() ? afterSeq : rows.get(rows.size() - 1).seq();
      }

      @Override
      public void saveRotations(List<BucketSalt> rotations) {
        synchronized (lock) {
          check();
          for (BucketSalt r : rotations) {
            salts.put(r.bucketIndex(), new Versioned<>(++seq, r));
          }
        }
      }
    };
  }

  @Override
  public OptOutStore optOuts() {
    return new OptOutStore() {
      @Override
      public Versioned<OptOut> record(byte[] firstLevelHash, Instant optedOutAt) {
        synchronized (lock) {
          check();
          return optOuts.computeIfAbsent(ByteBuffer.wrap(firstLevelHash.clone()),
              k -> new Versioned<>(++seq, new OptOut(firstLevelHash.clone(), optedOutAt)));
        }
      }

      @Override
      public Optional<OptOut> find(byte[] firstLevelHash) {
        synchronized (lock) {
          check();
          return Optional.ofNullable(optOuts.get(ByteBuffer.wrap(firstLevelHash))).map(Versioned::value);
        }
      }

      @Override
      public long forEachAfter(long afterSeq, Consumer<Versioned<OptOut>> sink) {
        List<Versioned<OptOut>> rows;
        synchronized (lock) {
          check();
          rows = optOuts.values().stream().filter(v -> v.seq() > afterSeq)
              .sorted((a, b) -> Long.compare(a.seq(), b.seq())).toList();
        }
        rows.forEach(sink);
        return rows.isEmpty() ? afterSeq : rows.get(rows.size() - 1).seq();
      }
    };
  }

  @Override
  public ClientStore clients() {
    return new ClientStore() {
      @Override
      public List<Versioned<ApiClient>> clientsAfter(long afterSeq) {
        synchronized (lock) {
          check();
          return clients.values().stream().filter(v -> v.seq() > afterSeq)
              .sorted((a, b) -> Long.compare(a.seq(), b.seq())).toList();
        }
      }

      @Override
      public Versioned<ApiClient> insert(String name, int siteId, Set<Role> roles, boolean enabled, Instant created,
          ApiKeyDigest key) {
        synchronized (lock) {
          check();
          long id = nextClientId++;
          ApiClient c = new ApiClient(id, name, siteId == 0 ? (int) id : siteId, roles, enabled, created, key);
          Versioned<ApiClient> v = new Versioned<>(++seq, c);
          clients.put(id, v);
          return v;
        }
      }

      @Override
      public Optional<Versioned<ApiClient>> update(ApiClient client) {
        synchronized (lock) {
          check();
          if (!clients.containsKey(client.id())) {
            return Optional.empty();
          }
          Versioned<ApiClient> v = new Versioned<>(++seq, client);
          clients.put(client.id(), v);
          return Optional.of(v);
        }
      }
    };
  }

  @Override
  public MetaStore meta() {
    return new MetaStore() {
      @Override
      public Optional<byte[]> get(String name) {
        synchronized (lock) {
          check();
          return Optional.ofNullable(meta.get(name)).map(byte[]::clone);
        }
      }

      @Override
      public byte[] putIfAbsent(String name, byte[] value) {
        synchronized (lock) {
          check();
          return meta.computeIfAbsent(name, k -> value.clone()).clone();
        }
      }

      @Override
      public boolean compareAndSet(String name, byte[] expected, byte[] update) {
        synchronized (lock) {
          check();
          byte[] current = meta.get(name);
          if (!Arrays.equals(current, expected)) {
            return false;
          }
          meta.put(name, update.clone());
          return true;
        }
      }
    };
  }

  @Override
  public JobLock jobLock() {
    return new JobLock() {
      @Override
      public <T> Optional<T> runExclusive(String jobName, Supplier<T> job) {
        ReentrantLock l = jobLocks.computeIfAbsent(jobName, n -> new ReentrantLock());
        if (!l.tryLock()) {
          return Optional.empty();
        }
        try {
          return Optional.ofNullable(job.get());
        } finally {
          l.unlock();
        }
      }
    };
  }

  @Override
  public String describe() {
    return "in-memory test store";
  }

  @Override
  public boolean isReachable() {
    return !down;
  }

  @Override
  public void close() {}

  // ---- deductions (DeductionAdminApi); the outage switch applies to them too ----

  private final InMemoryDeductionStore deductions = new InMemoryDeductionStore(this::check);

  @Override
  public dev.veil.deduction.DeductionStore deductions() {
    return deductions;
  }
}
