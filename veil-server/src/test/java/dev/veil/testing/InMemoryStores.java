package dev.veil.testing;

import dev.veil.audit.AuditEvent;
import dev.veil.audit.AuditFilter;
import dev.veil.audit.AuditLog;
import dev.veil.audit.AuditStore;
import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyDigest;
import dev.veil.client.ClientSecret;
import dev.veil.client.ClientStore;
import dev.veil.client.Role;
import dev.veil.common.ChangeCursor;
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
import dev.veil.site.Site;
import dev.veil.site.SiteStore;
import dev.veil.storage.Store;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * In-memory fakes of every feature store, sharing one change sequence like a real store.
 * Thread-safe (one lock).
 *
 * <p>Faults: {@link #setDown(boolean)} simulates an outage (every call throws {@link
 * StoreUnavailableException} and the store reports itself unreachable). For narrower faults every
 * call into a feature store first passes a hook that sees which {@link Part} it goes to and whether
 * it writes: {@link #failCalls} makes matching calls throw, {@link #holdCalls} makes them wait for
 * a latch, {@link #beforeEachCall} installs any other hook (counting calls, say). The hook runs
 * outside the lock, so a held call does not block the others. The job lock is not a feature store
 * and has no faults.
 */
public final class InMemoryStores implements Store {
  /**
   * Message of the {@link StoreUnavailableException} an outage throws (adapters must not show it).
   */
  public static final String OUTAGE_MESSAGE = "connection refused (simulated outage)";

  /** The feature stores, so that a fault can aim at one of them. */
  public enum Part {
    KEYS,
    SALTS,
    OPT_OUTS,
    CLIENTS,
    SITES,
    META,
    DEDUCTIONS,
    AUDIT
  }

  /** One call into a feature store: where it goes and whether it writes. */
  public record Call(Part part, boolean write) {
    /** Matches the calls that write to {@code part}. */
    public static Predicate<Call> writesTo(Part part) {
      return call -> call.part() == part && call.write();
    }
  }

  /** The hook when none is set: does nothing. */
  private static void noHook(Call call) {}

  private final Object lock = new Object();
  private long seq;
  private volatile boolean down;
  private volatile Consumer<Call> hook = InMemoryStores::noHook;

  private final TreeMap<Long, EncryptionKey> keys = new TreeMap<>();
  private final Map<Integer, Versioned<BucketSalt>> salts = new HashMap<>();
  private final Map<ByteBuffer, Versioned<OptOut>> optOuts = new HashMap<>();
  private final Map<Long, Versioned<ApiClient>> clients = new HashMap<>();
  private final Map<Integer, Versioned<Site>> sites = new HashMap<>();
  private final Map<String, byte[]> meta = new HashMap<>();
  private final Map<List<Integer>, Versioned<EncryptionKey>> successors = new HashMap<>();
  private final TreeMap<Instant, Integer> saltRuns = new TreeMap<>();
  private final Map<String, ReentrantLock> jobLocks = new ConcurrentHashMap<>();
  private int nextKeyId = 1;
  private long nextClientId = 1;

  /**
   * While down, every store call throws {@link StoreUnavailableException} and {@link
   * #isReachable()} is false.
   */
  public void setDown(boolean down) {
    this.down = down;
  }

  /**
   * Runs {@code hook} at the start of every later call into a feature store, outside the lock; it
   * may throw to fail the call, block to hold it, or just observe it. Replaces the previous hook;
   * {@code null} removes it.
   */
  public void beforeEachCall(Consumer<Call> hook) {
    this.hook = hook == null ? InMemoryStores::noHook : hook;
  }

  /** Later calls that {@code match} fail as in an outage (replaces the previous hook). */
  public void failCalls(Predicate<Call> match) {
    failCalls(match, () -> new StoreUnavailableException(OUTAGE_MESSAGE, null));
  }

  /**
   * Later calls that {@code match} throw what {@code fault} supplies (replaces the previous hook).
   */
  public void failCalls(Predicate<Call> match, Supplier<? extends RuntimeException> fault) {
    beforeEachCall(
        call -> {
          if (match.test(call)) {
            throw fault.get();
          }
        });
  }

  /**
   * Later calls that {@code match} count {@code entered} down, then wait until {@code gate} opens
   * (replaces the previous hook). A call still waiting after 30 s fails with {@link
   * StoreUnavailableException}, so a broken test does not hang.
   */
  public void holdCalls(Predicate<Call> match, CountDownLatch gate, CountDownLatch entered) {
    beforeEachCall(
        call -> {
          if (!match.test(call)) {
            return;
          }
          entered.countDown();
          try {
            if (!gate.await(30, TimeUnit.SECONDS)) {
              throw new StoreUnavailableException("test gate never opened", null);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while held", e);
          }
        });
  }

  /** Passes the hook, then the outage check; call before taking the lock. */
  private void enter(Part part, boolean write) {
    hook.accept(new Call(part, write));
    if (down) {
      throw new StoreUnavailableException(OUTAGE_MESSAGE, null);
    }
  }

  @Override
  public KeyStore keys() {
    return new KeyStore() {
      @Override
      public ChangeCursor forEachChange(
          ChangeCursor since, Consumer<Versioned<EncryptionKey>> sink) {
        enter(Part.KEYS, false);
        List<Versioned<EncryptionKey>> out = new ArrayList<>();
        synchronized (lock) {
          keys.tailMap(since.position(), false).forEach((s, k) -> out.add(new Versioned<>(s, k)));
        }
        return deliver(out, since, sink);
      }

      @Override
      public Inserted insert(
          int siteId,
          int predecessorId,
          Instant created,
          Instant activates,
          Instant expires,
          byte[] secret) {
        enter(Part.KEYS, true);
        synchronized (lock) {
          Versioned<EncryptionKey> existing = successors.get(List.of(siteId, predecessorId));
          if (existing != null) {
            return new Inserted(existing, false);
          }
          EncryptionKey key =
              new EncryptionKey(nextKeyId++, siteId, created, activates, expires, secret);
          keys.put(++seq, key);
          Versioned<EncryptionKey> stored = new Versioned<>(seq, key);
          successors.put(List.of(siteId, predecessorId), stored);
          return new Inserted(stored, true);
        }
      }
    };
  }

  @Override
  public SaltStore salts() {
    return new SaltStore() {
      @Override
      public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<BucketSalt>> sink) {
        return forEachChanged(Part.SALTS, salts.values(), since, sink);
      }

      @Override
      public boolean saveRotations(List<BucketSalt> rotations) {
        enter(Part.SALTS, true);
        synchronized (lock) {
          return applyRotations(rotations);
        }
      }

      @Override
      public boolean saveScheduledRotation(Instant periodStart, List<BucketSalt> rotations) {
        enter(Part.SALTS, true);
        synchronized (lock) {
          if (saltRuns.containsKey(periodStart)) {
            return false;
          }
          if (!applyRotations(rotations)) {
            return false;
          }
          saltRuns.put(periodStart, rotations.size());
          return true;
        }
      }

      @Override
      public Optional<Instant> lastScheduledRun() {
        enter(Part.SALTS, false);
        synchronized (lock) {
          return saltRuns.isEmpty() ? Optional.empty() : Optional.of(saltRuns.lastKey());
        }
      }
    };
  }

  /** Compare-and-set of every rotation, all or nothing; call under the lock. */
  private boolean applyRotations(List<BucketSalt> rotations) {
    Map<Integer, Integer> generations = new HashMap<>();
    for (BucketSalt r : rotations) {
      int before =
          generations.computeIfAbsent(
              r.bucketIndex(), i -> salts.containsKey(i) ? salts.get(i).value().generation() : 0);
      if (r.generation() != before + 1) {
        return false;
      }
      generations.put(r.bucketIndex(), r.generation());
    }
    for (BucketSalt r : rotations) {
      salts.put(r.bucketIndex(), new Versioned<>(++seq, r));
    }
    return true;
  }

  /** The scheduled salt rotation runs recorded: period start to buckets rotated. */
  public Map<Instant, Integer> saltRuns() {
    synchronized (lock) {
      return Map.copyOf(saltRuns);
    }
  }

  @Override
  public OptOutStore optOuts() {
    return new OptOutStore() {
      @Override
      public Versioned<OptOut> record(byte[] firstLevelHash, Instant optedOutAt) {
        enter(Part.OPT_OUTS, true);
        synchronized (lock) {
          return optOuts.computeIfAbsent(
              ByteBuffer.wrap(firstLevelHash.clone()),
              k -> new Versioned<>(++seq, new OptOut(firstLevelHash.clone(), optedOutAt)));
        }
      }

      @Override
      public Optional<OptOut> find(byte[] firstLevelHash) {
        enter(Part.OPT_OUTS, false);
        synchronized (lock) {
          return Optional.ofNullable(optOuts.get(ByteBuffer.wrap(firstLevelHash)))
              .map(Versioned::value);
        }
      }

      @Override
      public List<OptOut> findByPrefix(byte[] prefix) {
        enter(Part.OPT_OUTS, false);
        synchronized (lock) {
          return optOuts.values().stream()
              .map(Versioned::value)
              .filter(
                  o ->
                      Arrays.equals(o.firstLevelHash(), 0, prefix.length, prefix, 0, prefix.length))
              .toList();
        }
      }

      @Override
      public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<OptOut>> sink) {
        return forEachChanged(Part.OPT_OUTS, optOuts.values(), since, sink);
      }
    };
  }

  @Override
  public ClientStore clients() {
    return new ClientStore() {
      @Override
      public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<ApiClient>> sink) {
        return forEachChanged(Part.CLIENTS, clients.values(), since, sink);
      }

      @Override
      public Versioned<ApiClient> insert(
          String name,
          int siteId,
          Set<Role> roles,
          boolean enabled,
          Instant created,
          ApiKeyDigest key,
          ClientSecret secret) {
        enter(Part.CLIENTS, true);
        synchronized (lock) {
          long id = nextClientId++;
          AuditLog.assignedId(id);
          ApiClient c =
              new ApiClient(
                  id,
                  name,
                  siteId == 0 ? freeSiteId(id) : siteId,
                  roles,
                  enabled,
                  created,
                  key,
                  secret);
          Versioned<ApiClient> v = new Versioned<>(++seq, c);
          clients.put(id, v);
          return v;
        }
      }

      @Override
      public Optional<Versioned<ApiClient>> update(ApiClient client) {
        enter(Part.CLIENTS, true);
        synchronized (lock) {
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
  public SiteStore sites() {
    return new SiteStore() {
      @Override
      public ChangeCursor forEachChange(ChangeCursor since, Consumer<Versioned<Site>> sink) {
        return forEachChanged(Part.SITES, sites.values(), since, sink);
      }

      @Override
      public Versioned<Site> put(Site site) {
        enter(Part.SITES, true);
        synchronized (lock) {
          Versioned<Site> v = new Versioned<>(++seq, site);
          sites.put(site.siteId(), v);
          return v;
        }
      }
    };
  }

  @Override
  public MetaStore meta() {
    return new MetaStore() {
      @Override
      public Optional<byte[]> get(String name) {
        enter(Part.META, false);
        synchronized (lock) {
          return Optional.ofNullable(meta.get(name)).map(byte[]::clone);
        }
      }

      @Override
      public byte[] putIfAbsent(String name, byte[] value) {
        enter(Part.META, true);
        synchronized (lock) {
          return meta.computeIfAbsent(name, k -> value.clone()).clone();
        }
      }

      @Override
      public boolean compareAndSet(String name, byte[] expected, byte[] update) {
        enter(Part.META, true);
        synchronized (lock) {
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

  private final List<AuditEvent> auditEvents = new ArrayList<>();

  /**
   * The audit trail in memory. A fake has no SQL transactions, so {@link dev.veil.audit.AuditLog}
   * appends each record after its change has returned.
   */
  @Override
  public AuditStore audit() {
    return new AuditStore() {
      @Override
      public void appendIn(java.sql.Connection connection, AuditEvent event) {
        throw new AssertionError("an in-memory store runs no SQL transaction to append in");
      }

      @Override
      public AuditEvent append(AuditEvent e) {
        enter(Part.AUDIT, true);
        synchronized (lock) {
          AuditEvent stored =
              new AuditEvent(
                  auditEvents.size() + 1L,
                  e.at(),
                  e.actorId(),
                  e.actorName(),
                  e.action(),
                  e.target(),
                  e.details(),
                  e.reason());
          auditEvents.add(stored);
          return stored;
        }
      }

      @Override
      public List<AuditEvent> list(AuditFilter f, int limit) {
        enter(Part.AUDIT, false);
        synchronized (lock) {
          List<AuditEvent> out = new ArrayList<>();
          for (int i = auditEvents.size() - 1; i >= 0 && out.size() < limit; i--) {
            AuditEvent e = auditEvents.get(i);
            if ((f.actorId() == null || f.actorId() == e.actorId())
                && (f.action() == null || f.action().equals(e.action()))
                && (f.target() == null || f.target().equals(e.target()))
                && (f.from() == null || !e.at().isBefore(f.from()))
                && (f.until() == null || e.at().isBefore(f.until()))
                && (f.beforeId() == null || e.id() < f.beforeId())) {
              out.add(e);
            }
          }
          return out;
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

  /** The rows written after {@code afterSeq}, oldest first. */
  /**
   * As the JDBC stores choose it: {@code id}, or the next higher site id no client or keyset has.
   */
  private int freeSiteId(long id) {
    Set<Integer> taken = new HashSet<>();
    clients.values().forEach(v -> taken.add(v.value().siteId()));
    keys.values().forEach(k -> taken.add(k.siteId()));
    int site = Math.toIntExact(id);
    while (taken.contains(site)) {
      site++;
    }
    return site;
  }

  private static <T> List<Versioned<T>> changedAfter(Collection<Versioned<T>> rows, long afterSeq) {
    return rows.stream()
        .filter(v -> v.seq() > afterSeq)
        .sorted(Comparator.comparingLong(Versioned::seq))
        .toList();
  }

  /**
   * Hands the rows written after the cursor (a sequence number here: writes are atomic under one
   * lock, so they become visible in sequence order) to {@code sink} outside the lock.
   */
  private <T> ChangeCursor forEachChanged(
      Part part, Collection<Versioned<T>> rows, ChangeCursor since, Consumer<Versioned<T>> sink) {
    enter(part, false);
    List<Versioned<T>> changed;
    synchronized (lock) {
      changed = changedAfter(rows, since.position());
    }
    return deliver(changed, since, sink);
  }

  private static <T> ChangeCursor deliver(
      List<Versioned<T>> changed, ChangeCursor since, Consumer<Versioned<T>> sink) {
    changed.forEach(sink);
    return changed.isEmpty() ? since : new ChangeCursor(changed.get(changed.size() - 1).seq());
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

  // ---- deductions (DeductionAdminApi); hooks and the outage switch apply to them too (every
  // deduction call counts as a write: the fake does not tell reads from writes) ----

  private final InMemoryDeductionStore deductions =
      new InMemoryDeductionStore(() -> enter(Part.DEDUCTIONS, true));

  @Override
  public dev.veil.deduction.DeductionStore deductions() {
    return deductions;
  }

  private final InMemoryWebhookStore webhooks =
      new InMemoryWebhookStore(this::optOutsAfterSeq, this::lastOptOutSeq);

  @Override
  public dev.veil.webhook.WebhookStore webhooks() {
    return webhooks;
  }

  private java.util.List<dev.veil.webhook.LoggedOptOut> optOutsAfterSeq(long after, int limit) {
    enter(Part.OPT_OUTS, false);
    synchronized (lock) {
      return optOuts.values().stream()
          .filter(v -> v.seq() > after)
          .sorted(java.util.Comparator.comparingLong(Versioned::seq))
          .limit(limit)
          .map(
              v ->
                  new dev.veil.webhook.LoggedOptOut(
                      new dev.veil.webhook.LogPosition(0, v.seq()),
                      v.value().firstLevelHash().clone(),
                      v.value().optedOutAt()))
          .toList();
    }
  }

  private long lastOptOutSeq() {
    synchronized (lock) {
      return optOuts.values().stream().mapToLong(Versioned::seq).max().orElse(0);
    }
  }
}
