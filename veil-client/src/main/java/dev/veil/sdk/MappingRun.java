package dev.veil.sdk;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.MapJson;
import dev.veil.sdk.internal.Uninterruptibly;
import dev.veil.sdk.internal.ValueList;
import dev.veil.sdk.internal.cache.MappingStore;
import dev.veil.sdk.internal.cache.PendingBatch;
import dev.veil.sdk.internal.cache.Signal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * One mapping run of a {@link MappingCache}: every entry that waits is sent, in entry order, in
 * requests of at most the batch size, and each answer is stored.
 *
 * <p>Requests grow from {@link MappingCache#FIRST_BATCH_SIZE} identifiers, doubling, to the batch
 * size. The run's thread takes batches from the store and hands each request to a sender thread;
 * senders send and read the answer, a saver thread stores answers in the order they arrive (one
 * frame each), and a sync thread forces them to disk every quarter second and at the end. At most
 * {@code inFlight} requests are on the wire at once (1: one after the other, as {@link
 * MappingCache#mapPending()} promises; the store still works while the next request is out), and at
 * most {@code inFlight + 2} answers are unstored, so memory stays bounded. Answers may be stored
 * out of order: each entry's state is its own, so no order is needed to resume. A failure stops new
 * requests; answers already received are still stored, then the first failure is thrown. The cache
 * serializes runs; a run object is used once.
 */
final class MappingRun {
  private final MappingStore store;
  private final IdentityMapClient mapper;
  private final int batchSize;
  private final int inFlight;
  private final Clock clock;
  private final MappingCache.Listener listener;
  private final Signal added;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  MappingRun(
      MappingStore store,
      IdentityMapClient mapper,
      int batchSize,
      int inFlight,
      Clock clock,
      MappingCache.Listener listener,
      Signal added) {
    this.store = store;
    this.mapper = mapper;
    this.batchSize = batchSize;
    this.inFlight = inFlight;
    this.clock = clock;
    this.listener = listener;
    this.added = added;
  }

  /**
   * Maps what waits, and while {@code adding} is true also what is added meanwhile.
   *
   * @param buckets rotated buckets of the poll that started the run, for the report
   * @param marked entries that poll marked stale, for the report
   */
  CacheReport run(long buckets, long marked, Instant start, BooleanSupplier adding) {
    RunTally tally = new RunTally();
    ExecutorService senders = Executors.newFixedThreadPool(inFlight, daemon("veil-cache-send"));
    Semaphore wire = new Semaphore(inFlight);
    int unstoredLimit = inFlight + 2;
    Semaphore unstored = new Semaphore(unstoredLimit);
    Saver saver = new Saver(unstored, tally);
    Thread saving = daemon("veil-cache-save").newThread(saver);
    saving.start();
    try {
      int after = -1;
      int limit = Math.min(MappingCache.FIRST_BATCH_SIZE, batchSize);
      while (failure.get() == null) {
        PendingBatch batch = fill(store.pending(after, limit), after, adding, limit);
        if (batch.isEmpty()) {
          break;
        }
        after = batch.lastEntry();
        limit = (int) Math.min(batchSize, 2L * limit);
        for (Part part : parts(batch)) {
          acquire(unstored, 1);
          try {
            acquire(wire, 1);
          } catch (RuntimeException interrupted) {
            unstored.release(); // the finally below waits for every permit that a task holds
            throw interrupted;
          }
          if (failure.get() != null) {
            wire.release();
            unstored.release();
            break;
          }
          senders.execute(() -> send(part, wire, unstored, saver));
        }
      }
    } finally {
      // Every request sent is answered (or fails) and every answer received is stored and synced
      // before the run ends, even when it ends by a failure: nothing writes to the store after it.
      if (Thread.currentThread().isInterrupted()) {
        // Stopped (close() stops a background poll so): requests on the wire end at their answer or
        // timeout, or at once while waiting to retry, instead of going through every retry.
        senders.shutdownNow();
      }
      unstored.acquireUninterruptibly(unstoredLimit);
      senders.shutdown();
      saver.stop();
      Uninterruptibly.join(saving);
    }
    rethrow(failure.get());
    return new CacheReport(
        buckets,
        marked,
        tally.counts[0],
        tally.counts[1],
        tally.counts[2],
        tally.counts[3],
        Duration.between(start, clock.instant()));
  }

  /** On a sender thread: sends one part, then hands its answer to the saver. */
  private void send(Part part, Semaphore wire, Semaphore unstored, Saver saver) {
    MapAnswer answer;
    Instant mappedAt;
    try {
      mappedAt =
          clock.instant(); // before the request leaves: the server maps with a salt of this time or
      // later
      answer =
          part.kind() == null
              ? MapAnswer.allUnmapped(
                  part.entries().size(), MapOutcome.Reason.INVALID_IDENTIFIER.wireName())
              : mapper.sendForCache(part.kind(), part.sent());
    } catch (Throwable t) {
      failure.compareAndSet(null, t);
      unstored.release();
      return;
    } finally {
      wire.release();
    }
    saver.queue.add(new Answered(part, answer, mappedAt));
  }

  private record Answered(Part part, MapAnswer answer, Instant mappedAt) {}

  /**
   * The saver thread: stores answers as they arrive and has them forced to disk at most every
   * {@link #SYNC_EVERY_NANOS} (and when the run ends), so that the disk costs a run a few forces,
   * not one per answer: a crash loses at most the answers of the last quarter second (and of a
   * force under way), which the next run maps again. An answer's permit is released once it is
   * stored (its memory is then free). Forces run on a thread of their own ({@link Syncer}), so that
   * storing, and with it the requests that wait for permits, goes on while the disk works; an
   * answer's entries are counted (and reported) there, once they are on disk.
   */
  private final class Saver implements Runnable {
    private static final Answered STOP = new Answered(null, null, null);

    /** Longest time an answer stays stored but not forced. */
    private static final long SYNC_EVERY_NANOS = 250_000_000L;

    final BlockingQueue<Answered> queue = new LinkedBlockingQueue<>();
    private final Semaphore unstored;
    private final Syncer syncer;

    Saver(Semaphore unstored, RunTally tally) {
      this.unstored = unstored;
      this.syncer = new Syncer(tally);
    }

    void stop() {
      queue.add(STOP);
    }

    @Override
    public void run() {
      Thread syncing = daemon("veil-cache-sync").newThread(syncer);
      syncing.start();
      try {
        store();
      } finally {
        syncer.queue.add(Synced.STOP);
        Uninterruptibly.join(syncing);
      }
    }

    private void store() {
      List<Answered> group = new ArrayList<>();
      Synced pending = new Synced();
      boolean stopping = false;
      boolean storeFailed = false; // after a failed request, answers received are still stored
      long lastSync = System.nanoTime();
      while (!stopping) {
        group.clear();
        Answered next =
            pending.isEmpty() ? takeUninterruptibly() : pollUntil(lastSync + SYNC_EVERY_NANOS);
        if (next != null) {
          group.add(next);
          queue.drainTo(group);
        }
        stopping = removeStop(group);
        try {
          for (Answered a : group) {
            if (!storeFailed) {
              pending.add(
                  store.append(a.part().entries(), a.answer(), a.mappedAt(), clock.instant()),
                  a.part().entries().size(),
                  store.todoCount());
            }
          }
          if (!pending.isEmpty()
              && (stopping || System.nanoTime() - lastSync >= SYNC_EVERY_NANOS)) {
            syncer.queue.add(pending);
            pending = new Synced();
            lastSync = System.nanoTime();
          }
        } catch (Throwable t) {
          storeFailed = true;
          pending = new Synced(); // not known to be on disk: not counted
          failure.compareAndSet(null, t);
        } finally {
          unstored.release(group.size());
        }
      }
    }

    /**
     * Takes {@link #STOP} out of {@code group}, by identity: a record's {@code equals} would link
     * its generated methods at run time (a few dozen method handles) just for this.
     */
    @SuppressWarnings("ReferenceEquality") // STOP is a sentinel: that very object ends the group
    private static boolean removeStop(List<Answered> group) {
      for (int i = group.size() - 1; i >= 0; i--) {
        if (group.get(i) == STOP) {
          group.remove(i);
          return true;
        }
      }
      return false;
    }

    /** The next answer, or null once {@code deadline} (a {@link System#nanoTime()}) has passed. */
    private Answered pollUntil(long deadline) {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            return queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /** The next answer; only the run ends the saver (with STOP, once every permit came back). */
    private Answered takeUninterruptibly() {
      return Uninterruptibly.take(queue);
    }
  }

  /** Answers stored since the last force, with what the report needs once they are on disk. */
  private static final class Synced {
    static final Synced STOP = new Synced();

    /** One stored answer: what storing it did, its entries, and how many waited right after. */
    private record Stored(MappingStore.Applied applied, int size, long waitingAfter) {}

    final List<Stored> stored = new ArrayList<>();

    void add(MappingStore.Applied a, int size, long waiting) {
      stored.add(new Stored(a, size, waiting));
    }

    boolean isEmpty() {
      return stored.isEmpty();
    }

    long end() {
      return stored.get(stored.size() - 1).applied().end();
    }
  }

  /**
   * Forces stored answers to disk, one group after the other, and counts them once they are there.
   * After a failed force nothing more is counted (the run fails with it).
   */
  private final class Syncer implements Runnable {
    final BlockingQueue<Synced> queue = new LinkedBlockingQueue<>();
    private final RunTally tally;

    Syncer(RunTally tally) {
      this.tally = tally;
    }

    @Override
    public void run() {
      boolean failed = false;
      while (true) {
        Synced group = Uninterruptibly.take(queue);
        if (group == Synced.STOP) {
          return;
        }
        if (failed) {
          continue;
        }
        try {
          store.sync(group.end());
          for (Synced.Stored s : group.stored) {
            tally.add(s.applied(), s.size(), s.waitingAfter());
          }
        } catch (Throwable t) {
          failed = true;
          failure.compareAndSet(null, t);
        }
      }
    }
  }

  /**
   * {@code batch} if it is full or nothing more is being added; otherwise waits for adds and
   * fetches again from the same cursor, until the batch is full or adding has stopped.
   */
  private PendingBatch fill(PendingBatch batch, int after, BooleanSupplier adding, int limit) {
    while (batch.size() < limit && failure.get() == null) {
      boolean more = adding.getAsBoolean();
      if (more) {
        added.awaitAfter(added.count());
      }
      batch = store.pending(after, limit);
      if (!more) {
        break; // adding had stopped before this fetch: it saw everything
      }
    }
    return batch;
  }

  /**
   * Counts of one run, reported to the listener on the thread that forces answers to disk. The
   * total is what was stored plus what waited right after: exact (an entry is either stored or
   * still waiting), and it grows as entries are added during the run.
   */
  private final class RunTally {
    final long[] counts = new long[4];
    long done;

    void add(MappingStore.Applied applied, int size, long waiting) {
      counts[0] += applied.mapped();
      counts[1] += applied.remapped();
      counts[2] += applied.optedOut();
      counts[3] += applied.invalid();
      applied.removed().forEach(r -> listener.removed(r.identifier(), r.reason()));
      done += size;
      listener.progress(done, done + waiting);
    }
  }

  /**
   * One request's worth of entries, all sent as {@code kind} with the values {@code sent} (their
   * hashes when the client hashes here); none sent when kind is null.
   */
  private record Part(PendingBatch entries, IdentityInput kind, ValueList sent) {}

  /**
   * Groups a batch by the kind sent, in order, and splits groups where a body would grow too large.
   */
  private List<Part> parts(PendingBatch batch) {
    if (!mapper.hashesIdentifiers()
        && batch.oneKind()
        && MapJson.ENVELOPE_BYTES + batch.values().jsonBytesBound() <= mapper.batchBytes()) {
      return List.of(
          new Part(batch, batch.kind(0), batch.values())); // the usual case: one request as it is
    }
    IdentityInput[] kinds = new IdentityInput[batch.size()];
    byte[][] values = new byte[batch.size()][];
    Map<IdentityInput, List<Integer>> byKind = new LinkedHashMap<>();
    List<Integer> unsendable = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      Identifier sent =
          mapper.hashesIdentifiers()
              ? mapper.toSendValid(batch.identifier(i))
              : batch.identifier(i);
      if (sent == null) {
        unsendable.add(i);
      } else {
        kinds[i] = sent.kind();
        values[i] = sent.value().getBytes(StandardCharsets.UTF_8);
        byKind.computeIfAbsent(kinds[i], k -> new ArrayList<>()).add(i);
      }
    }
    List<Part> parts = new ArrayList<>();
    if (!unsendable.isEmpty()) {
      // Only when hashing here and normalization changed since they were added: reported invalid.
      parts.add(new Part(select(batch, unsendable), null, null));
    }
    byKind.forEach(
        (kind, indexes) -> {
          for (List<Integer> run : mapper.batches(indexes, values)) {
            ValueList sent = new ValueList(run.size(), run.size() * 48);
            run.forEach(i -> sent.add(values[i], 0, values[i].length));
            parts.add(new Part(select(batch, run), kind, sent));
          }
        });
    return parts;
  }

  private static PendingBatch select(PendingBatch batch, List<Integer> indexes) {
    return batch.select(indexes.stream().mapToInt(Integer::intValue).toArray(), 0, indexes.size());
  }

  private void acquire(Semaphore semaphore, int permits) {
    try {
      semaphore.acquire(permits);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while mapping", e);
    }
  }

  private static void rethrow(Throwable t) {
    if (t == null) {
      return;
    }
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException(t);
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
