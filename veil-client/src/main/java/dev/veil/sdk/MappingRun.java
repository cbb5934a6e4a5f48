package dev.veil.sdk;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.internal.MapJson;
import dev.veil.sdk.internal.MappingStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.function.BooleanSupplier;

/**
 * One mapping run of a {@link MappingCache}: every entry that waits is sent, in id order, in
 * requests of at most the batch size, one request at a time, and each answer is committed. While
 * the server answers one request, a writer thread commits the previous answer and a reader thread
 * fetches the next batch, so the server rarely waits for the disk. The cache serializes runs; a
 * run object is used once.
 */
final class MappingRun {
  private static final MapJson.Entry INVALID =
      new MapJson.Entry(null, null, MapOutcome.Reason.INVALID_IDENTIFIER.wireName());

  private final MappingStore store;
  private final IdentityMapClient mapper;
  private final int batchSize;
  private final Clock clock;
  private final MappingCache.Listener listener;
  private final AddSignal added;

  MappingRun(MappingStore store, IdentityMapClient mapper, int batchSize, Clock clock, MappingCache.Listener listener,
      AddSignal added) {
    this.store = store;
    this.mapper = mapper;
    this.batchSize = batchSize;
    this.clock = clock;
    this.listener = listener;
    this.added = added;
  }

  /**
   * Maps what waits, and while {@code adding} is true also what is added meanwhile. A failure
   * stops the run only after the commit in progress has finished.
   *
   * @param buckets rotated buckets of the poll that started the run, for the report
   * @param marked entries that poll marked stale, for the report
   */
  CacheReport run(long buckets, long marked, Instant start, BooleanSupplier adding) {
    RunTally tally = new RunTally(store.todoCount(), added.count());
    ExecutorService writer = Executors.newSingleThreadExecutor(daemon("veil-mapping-cache-writer"));
    ExecutorService reader = Executors.newSingleThreadExecutor(daemon("veil-mapping-cache-reader"));
    Future<MappingStore.Applied> committing = null;
    int committingSize = 0;
    try {
      Future<List<MappingStore.Todo>> next = reader.submit(() -> store.todo(0, batchSize));
      long after = 0;
      List<MappingStore.Todo> batch;
      while (!(batch = fill(await(next), after, adding)).isEmpty()) {
        long last = batch.get(batch.size() - 1).id();
        after = last;
        // The reader connection fetches the next batch while this one is on the wire.
        next = reader.submit(() -> store.todo(last, batchSize));
        for (Part part : parts(batch)) {
          Instant mappedAt = clock.instant();
          MapJson.Entry[] entries = part.kind() == null ? part.locallyInvalid() : mapper.send(part.kind(), part.values());
          if (committing != null) {
            tally.add(await(committing), committingSize);
          }
          committing = writer.submit(() -> store.apply(part.todos(), entries, mappedAt, clock.instant()));
          committingSize = part.todos().size();
        }
      }
      if (committing != null) {
        tally.add(await(committing), committingSize);
        committing = null;
      }
    } finally {
      if (committing != null) {
        try {
          committing.get(); // the answer already received is kept; the failure propagates
        } catch (ExecutionException | InterruptedException | RuntimeException ignored) {
          // the run is failing for another reason, which wins
        }
      }
      writer.shutdown();
      reader.shutdown();
    }
    return new CacheReport(buckets, marked, tally.counts[0], tally.counts[1], tally.counts[2], tally.counts[3],
        Duration.between(start, clock.instant()));
  }

  /**
   * {@code batch} if it is full or nothing more is being added; otherwise waits for adds and
   * fetches again from the same cursor, until the batch is full or adding has stopped.
   */
  private List<MappingStore.Todo> fill(List<MappingStore.Todo> batch, long after, BooleanSupplier adding) {
    while (batch.size() < batchSize) {
      boolean more = adding.getAsBoolean();
      if (more) {
        added.awaitMoreThan(added.count());
      }
      batch = store.todo(after, batchSize);
      if (!more) {
        break; // adding had stopped before this fetch: it saw everything
      }
    }
    return batch;
  }

  /** Counts of one run, reported to the listener on the run's thread. */
  private final class RunTally {
    final long[] counts = new long[4];
    final long initialTotal;
    final long addedAtStart;
    long done;

    RunTally(long initialTotal, long addedAtStart) {
      this.initialTotal = initialTotal;
      this.addedAtStart = addedAtStart;
    }

    void add(MappingStore.Applied applied, int size) {
      counts[0] += applied.mapped();
      counts[1] += applied.remapped();
      counts[2] += applied.optedOut();
      counts[3] += applied.invalid();
      applied.removed().forEach(r -> listener.removed(r.identifier(), r.reason()));
      done += size;
      long total = initialTotal + added.count() - addedAtStart;
      listener.progress(done, Math.max(done, total));
    }
  }

  /** One request's worth of entries: all sent as {@code kind} ({@code values}), or none (kind null). */
  private record Part(List<MappingStore.Todo> todos, IdentityInput kind, List<String> values) {
    /** Entries that no longer hash (only if normalization changed since they were added). */
    MapJson.Entry[] locallyInvalid() {
      MapJson.Entry[] entries = new MapJson.Entry[todos.size()];
      Arrays.fill(entries, INVALID);
      return entries;
    }
  }

  /** Groups a batch by the kind sent, in order, and splits groups where a body would grow too large. */
  private List<Part> parts(List<MappingStore.Todo> batch) {
    List<String> values = new ArrayList<>(batch.size());
    Map<IdentityInput, List<Integer>> byKind = new LinkedHashMap<>();
    List<MappingStore.Todo> invalid = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      Identifier sent = mapper.toSendValid(batch.get(i).identifier());
      values.add(sent == null ? null : sent.value());
      if (sent == null) {
        invalid.add(batch.get(i));
      } else {
        byKind.computeIfAbsent(sent.kind(), k -> new ArrayList<>()).add(i);
      }
    }
    List<Part> parts = new ArrayList<>();
    if (!invalid.isEmpty()) {
      parts.add(new Part(invalid, null, List.of()));
    }
    byKind.forEach((kind, indexes) -> {
      for (List<Integer> run : mapper.batches(indexes, values)) {
        parts.add(new Part(run.stream().map(batch::get).toList(), kind, run.stream().map(values::get).toList()));
      }
    });
    return parts;
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  private static <T> T await(Future<T> work) {
    try {
      return work.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the mapping cache file", e);
    }
  }
}
