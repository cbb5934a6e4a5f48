package dev.veil.sdk;

import dev.veil.sdk.internal.Durations;
import dev.veil.sdk.internal.OptOutStatusJson;
import dev.veil.sdk.internal.cache.MappingStore;
import dev.veil.sdk.internal.cache.RotationLoad;
import dev.veil.sdk.internal.cache.Signal;
import dev.veil.sdk.internal.cache.Values;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The data collector's mapping table, kept up to date as salts rotate: identifier → advertising id
 * → bucket id, with the time each entry was mapped, in a local file.
 *
 * <pre>{@code
 * try (MappingCache cache = veil.mappingCache(Path.of("audience.veil-cache")).build()) {
 *   cache.add(List.of(Identifier.email("a@example.com"), Identifier.email("b@example.com")));
 *   cache.mapPending();   // maps what is new (or left over from an interrupted run)
 *   cache.startPolling(); // daily: poll rotated buckets, re-map what they affect
 *   cache.get(Identifier.email("a@example.com")).ifPresent(m -> use(m.advertisingId()));
 * }
 * }</pre>
 *
 * <h2>Design note: what gets re-mapped</h2>
 *
 * <p>{@link #refresh()} asks {@code GET /v1/identity/buckets} for buckets rotated since the
 * previous poll (minus {@link #POLL_OVERLAP}, so that clock skew between nodes cannot hide a
 * rotation), and marks stale exactly the entries whose bucket is listed with a rotation time after
 * the entry's {@code mappedAt} (or at the same millisecond). Entries mapped after the rotation are
 * left alone, however many times a bucket is listed. {@code mappedAt} is this client's clock just
 * before the mapping request left, so any mapping the server computed with the old salt has a
 * {@code mappedAt} before the rotation; the server rounds rotation times up to the next second,
 * which keeps this true when both clocks agree (NTP). The first poll reaches back to the cache's
 * creation (minus the overlap), so it also lists every bucket whose initial salt took effect after
 * that (a new server); none of their entries is stale. An entry mapped in the split second between
 * a rotation and the whole second it takes effect at is marked once more by the next poll: the
 * times cannot show which salt the server used, so it is mapped again rather than risk a stale id.
 * Stale entries keep their previous advertising id until they are mapped again.
 *
 * <h2>Design note: v3</h2>
 *
 * <p>With the client's secret ({@link VeilClient.Builder#clientSecret}) the cache maps over {@code
 * POST /v3/identity/map}, which names no buckets but gives each identifier its refresh time and,
 * for 90 days after its bucket's rotation, its previous advertising id ({@link
 * CachedMapping#previousAdvertisingId()}). Its {@link #refresh()} polls no buckets: it marks stale
 * the entries whose refresh time has passed (and any mapped over v1, which have none), asks {@code
 * POST /v2/optout/status} about the advertising id of every other entry, 5,000 at a time, and
 * removes those opted out (told to {@link Listener#removed} on the refreshing thread), then maps
 * the stale ones. So a person who opts out after being mapped leaves the cache at the next daily
 * refresh, not at the next rotation of their bucket, up to a year later. The opt-out check costs
 * one request per 5,000 entries a refresh. The v1 flow stays for a client without a secret and for
 * servers that speak only v1; a file may hold entries of both (it records each mapping's kind), and
 * a cache moved from v1 to v3 maps every entry again at its first refresh.
 *
 * <h2>Design note: durability</h2>
 *
 * <p>The file is a log: every step appends one checksummed frame (added identifiers with the input
 * checkpoint they reach; one batch's answer; a poll's marks, then its new poll time), and every
 * prefix of the log is a consistent cache. {@link #add} returns once its frame is on disk; a run
 * forces its answers to disk every quarter second and returns once all are. A process killed at any
 * point, even in the middle of a write, leaves a file of complete frames (at least every step that
 * had returned) plus perhaps an incomplete last frame, which the next open cuts off. The next
 * {@link #mapPending()} or {@link #refresh()} then continues with the entries still waiting; a lost
 * checkpoint only makes an import read lines again that it then finds already held. Entries are
 * unique by (kind, identifier), checked against an index the cache keeps in memory and confirmed
 * against the stored value: nothing is lost and nothing is held twice. An identifier the server
 * reports as opted out (or invalid) is removed and recorded as a {@link Rejection}, in the same
 * frame as the rest of its batch, and the {@link Listener} is told. When most records have been
 * replaced (by re-mappings and removals), a refresh or the next open rewrites the file with the
 * current ones only, via a new file renamed over the old. The file format is described in {@code
 * dev.veil.sdk.internal.cache.Records}; files written by the first client version (SQLite) are not
 * read: map into a new file.
 *
 * <h2>Costs</h2>
 *
 * <p>Memory: 32 to 64 bytes per entry (an index and each entry's positions in the file, in tables
 * that grow by doubling, or are sized at once by {@link #reserve}; values stay in the file), 32 MB
 * for a million. Disk: about 100 bytes per email with its mapping. Opening reads the whole file
 * (well under a second per million entries). Adding costs a hash and a lookup per identifier,
 * storing an answer a copy; the file is forced once per {@link #add}, per quarter second of a run,
 * per poll.
 *
 * <p>Thread-safe. One mapping run ({@link #mapPending()} or {@link #refresh()}) at a time: a second
 * caller waits. {@link #add}, {@link #get} and the iterations may run alongside; they see every
 * step that has been written. One {@code MappingCache} per file: a second one, in this process or
 * another, fails to open while the first is open (a lock on {@code <file>.lock}). Close it to
 * release the file. A symbolic link as the file is followed: the cache, its lock and a compaction's
 * new file are where the link points (created there, mode 0600, if new), so every name of the file
 * takes the same lock and the link stays a link.
 */
public final class MappingCache implements AutoCloseable {
  /** The most requests a run may keep on the wire at once ({@link Builder#requestsInFlight}). */
  public static final int MAX_REQUESTS_IN_FLIGHT = 4;

  /**
   * The most identifiers in a run's first request; each next request holds twice as many as the one
   * before, up to the client's batch size. A process that has just started sends its first request,
   * and keeps the server busy, while its own code is still being compiled: on a one-core client, a
   * run of a million emails starting with a full batch of 5,000 left the server idle for longer
   * (docs/benchmarks-client.md, "The launcher, the JVM's start, and a profile with Java frames").
   */
  public static final int FIRST_BATCH_SIZE = 1_000;

  /**
   * The retries of a run's and a poll's requests by default (when neither {@link
   * Builder#retryPolicy} nor {@link VeilClient.Builder#retryPolicy} was given): {@link
   * RetryPolicy#defaults()}'s four attempts for failures, so that a server that is not there is
   * said within about 1.5 s, but an answer 429 (the key's rate limit) is waited out, up to 1,000
   * attempts with waits of at most 2 s ({@code Retry-After: 1} from the server), about half an
   * hour: a run goes on at the rate the key is allowed instead of stopping after a few seconds.
   * {@code veil map} uses the same.
   */
  public static final RetryPolicy BULK_RETRIES =
      RetryPolicy.builder().rateLimitedAttempts(1_000).maxBackoff(Duration.ofSeconds(2)).build();

  /**
   * The default retries once the server has answered a request of this cache: {@link
   * #BULK_RETRIES}, but failures (no answer, 503) are tried 17 times over about 30 s, so that a
   * restart of the server (seconds to tens of seconds: the old process drains, the new one loads
   * its keys and salts) does not stop a run that may have hours to go. The price: a server that
   * accepts requests but never answers them is given up after 17 request timeouts instead of 4.
   */
  public static final RetryPolicy BULK_RETRIES_AFTER_ANSWER =
      RetryPolicy.builder()
          .maxAttempts(17)
          .rateLimitedAttempts(1_000)
          .maxBackoff(Duration.ofSeconds(2))
          .build();

  /** How far each poll reaches back before the previous one, against clock skew. */
  public static final Duration POLL_OVERLAP = Duration.ofMinutes(10);

  static final String POLL_SINCE = "poll.since_ms";
  static final String LAST_POLL = "poll.last_ms";
  private static final String CHECKPOINT = "checkpoint.";
  private static final int ADD_CHUNK = 10_000;

  /**
   * Told what a run does; the defaults ignore the event. {@link #progress} and {@link #removed} are
   * called one at a time, in order, on a thread of the run's own (the one that forces answers to
   * disk), once what they report is on disk: not on the thread that called {@link #mapPending()} or
   * {@link #refresh()}, which gets the run's totals as its result. {@link #pollFailed} is called on
   * the polling scheduler's thread. Keep them quick: storing answers waits for them. An exception
   * thrown from {@link #progress} or {@link #removed} stops the run, which throws it once what was
   * stored is on disk (a background poll hands it to {@link #pollFailed}); removals not told so are
   * still in {@link #forEachRejection}.
   */
  public interface Listener extends ProgressListener {
    /** Called after each mapping request of a run, once its answer is on disk. */
    @Override
    default void progress(long done, long total) {}

    /** An entry was removed: the person opted out, or the server found it invalid. */
    default void removed(Identifier identifier, MapOutcome.Reason reason) {}

    /**
     * A background poll ({@link #startPolling()}) failed; it is tried again at the next interval.
     * An exception thrown from here goes to the polling thread's uncaught-exception handler, and
     * polling goes on.
     */
    default void pollFailed(RuntimeException failure) {}
  }

  private final MappingStore store;
  private final IdentityMapClient mapper;
  private final int batchSize;
  private final int requestsInFlight;
  private final Listener listener;
  private final Clock clock;
  private final Duration pollInterval;
  private final ScheduledExecutorService givenScheduler;
  private final ReentrantLock runLock = new ReentrantLock();

  /**
   * Entries added since the cache was opened: a run in {@link #mapPendingWhile} waits on it for
   * more.
   */
  private final Signal added = new Signal(50, "identifiers to be added");

  private ScheduledExecutorService ownScheduler;
  private ScheduledFuture<?> polling;
  private boolean closed;

  private MappingCache(Builder b) {
    RetryPolicy given =
        b.retryPolicy != null ? b.retryPolicy : b.client.givenRetryPolicy().orElse(null);
    this.mapper =
        new IdentityMapClient(
            b.client,
            given != null
                ? b.client.caller(given, given)
                : b.client.caller(BULK_RETRIES, BULK_RETRIES_AFTER_ANSWER));
    this.batchSize = b.client.batchSize();
    this.requestsInFlight = b.requestsInFlight;
    this.listener = b.listener;
    this.clock = b.clock;
    this.pollInterval = b.pollInterval;
    this.givenScheduler = b.scheduler;
    this.store = MappingStore.open(b.file);
    if (store.meta(POLL_SINCE).isEmpty()) {
      // Nothing here can have been mapped before now: polling may start from here (minus the
      // overlap).
      store.putMeta(POLL_SINCE, Long.toString(clock.instant().minus(POLL_OVERLAP).toEpochMilli()));
    }
  }

  static Builder builder(VeilClient client, Path file) {
    return new Builder(client, file);
  }

  /**
   * Adds identifiers; each is held once, whatever it was added with before. Identity is the value
   * as given: {@code A@Example.com} and {@code a@example.com}, or an email and its hash, are two
   * entries (with the same advertising id). Identifiers that do not normalize are not added and are
   * recorded as rejected (a value longer than 1 MiB, which no identifier is, by its first 1 MiB).
   * New entries are mapped by the next {@link #mapPending()} or {@link #refresh()}.
   */
  public AddResult add(Iterable<Identifier> identifiers) {
    AddResult total = new AddResult(0, 0, 0);
    IdentifierBatch chunk = new IdentifierBatch(ADD_CHUNK);
    for (Identifier id : identifiers) {
      chunk.add(id);
      if (chunk.size() == ADD_CHUNK) {
        total = total.plus(addChunk(chunk, null, 0, true));
        chunk.clear();
      }
    }
    return chunk.isEmpty() ? total : total.plus(addChunk(chunk, null, 0, true));
  }

  /**
   * Adds identifiers read from a source of the caller's (a file, a queue) and records, in the same
   * transaction, how far into that source they reach. After a crash, {@link #checkpoint} tells
   * where to resume reading without losing or re-reading anything.
   *
   * @param source the caller's name for the source, e.g. the input file's path
   * @param position how far the source has been read once these are added, e.g. a line count
   */
  public AddResult add(List<Identifier> identifiers, String source, long position) {
    return add(batchOf(identifiers), source, position);
  }

  /**
   * {@link #add(List, String, long)} of a batch; it may be cleared and reused once this returns.
   */
  public AddResult add(IdentifierBatch identifiers, String source, long position) {
    Objects.requireNonNull(source, "source");
    return addChunk(identifiers, source, position, true);
  }

  /**
   * {@link #add(IdentifierBatch, String, long)} for bulk imports, the cheapest way to add millions
   * of identifiers (see {@link IdentifierBatch}): returns once the identifiers and the position are
   * written, without waiting for the disk. They are on disk after the next force of the file: by a
   * later {@link #add}, a mapping run (which forces its answers every quarter second), {@link
   * #sync()} or {@link #close()}. A crash may lose the last such adds, but never a position without
   * the identifiers before it, so reading on from {@link #checkpoint} after a crash reads exactly
   * what was lost. An import that reads while it maps so never waits for the disk. The batch may be
   * cleared and reused once this returns.
   */
  public AddResult addBuffered(IdentifierBatch identifiers, String source, long position) {
    Objects.requireNonNull(source, "source");
    return addChunk(identifiers, source, position, false);
  }

  /**
   * A hint before a bulk import: makes room in memory for about {@code entries} more (up to 16
   * million, and up to an eighth of the JVM's maximum heap), so that adding them does not grow and
   * copy the cache's in-memory tables step by step. Costs 32 to 48 bytes per entry of room, used or
   * not.
   */
  public void reserve(long entries) {
    store.reserve(entries);
  }

  /** Forces everything written so far to disk. */
  public void sync() {
    store.sync();
  }

  /** The position last recorded for {@code source} by {@link #add(List, String, long)}. */
  public OptionalLong checkpoint(String source) {
    return store
        .meta(CHECKPOINT + source)
        .map(v -> OptionalLong.of(Long.parseLong(v)))
        .orElse(OptionalLong.empty());
  }

  private static IdentifierBatch batchOf(List<Identifier> identifiers) {
    IdentifierBatch batch = new IdentifierBatch(identifiers.size());
    for (Identifier id : identifiers) {
      batch.add(id);
    }
    return batch;
  }

  private AddResult addChunk(IdentifierBatch chunk, String source, long position, boolean sync) {
    Values values = chunk.values();
    List<Identifier> invalid = new ArrayList<>(chunk.malformed());
    boolean[] keep = null;
    for (int i = 0; i < values.size(); i++) {
      if (!values.isValid(i)) {
        if (keep == null) {
          keep = new boolean[values.size()];
          Arrays.fill(keep, true);
        }
        keep[i] = false;
        invalid.add(values.identifier(i));
      }
    }
    AddResult result =
        store.add(
            keep == null ? values : values.keep(keep),
            invalid,
            clock.instant(),
            source == null ? null : CHECKPOINT + source,
            Long.toString(position),
            sync);
    added.add(result.added()); // a run in mapPendingWhile may be waiting for these
    return result;
  }

  /**
   * Maps every entry that waits for it: new ones, and stale ones left by an interrupted {@link
   * #refresh()}. Batches go out one after the other (or up to {@link Builder#requestsInFlight} at
   * once); answers are stored as they arrive and forced to disk every quarter second, so when this
   * returns (or throws) every answer received is on disk, and a crash meanwhile loses at most the
   * answers of the last quarter second, which the next run maps again. Progress is reported as
   * answers reach the disk.
   *
   * <p>A request refused 429 (the key's rate limit) or left unanswered by a restarting server is
   * retried under the cache's retry policy ({@link Builder#retryPolicy}), by default long enough to
   * wait out either.
   *
   * @throws VeilClientException if a batch fails; the batches before it are kept
   */
  public CacheReport mapPending() {
    return mapPendingWhile(() -> false);
  }

  /**
   * Maps what waits, like {@link #mapPending()}, and keeps going while {@code adding} is true, so
   * that entries another thread adds meanwhile are mapped too: an import can read its input and map
   * it at the same time. Returns once {@code adding} is false and nothing waits. Progress totals
   * grow as entries are added.
   *
   * @throws VeilClientException if a batch fails; the batches before it are kept
   */
  public CacheReport mapPendingWhile(BooleanSupplier adding) {
    Objects.requireNonNull(adding, "adding");
    runLock.lock();
    try {
      Instant start = clock.instant();
      return newRun().run(0, 0, start, adding);
    } finally {
      runLock.unlock();
    }
  }

  /**
   * Wakes a run waiting in {@link #mapPendingWhile} for more entries and a walk following a run
   * ({@link #writeCsvWhileMapping}), so that they check the conditions they were given at once.
   * Call it when such a condition turns false; without it they notice within 50 ms.
   */
  public void wake() {
    added.add(0);
    store.wakeWalks();
  }

  /**
   * Polls the buckets rotated since the previous poll, marks stale the entries mapped before their
   * bucket's rotation, and maps every entry that waits (see the design note). Over v3 (a client
   * with a secret): marks stale the entries whose refresh time has passed, removes the opted-out
   * ones, and maps every entry that waits (see the design note on v3).
   *
   * @throws VeilClientException if the poll or a batch fails; marks already committed stay, and the
   *     next run continues
   */
  public CacheReport refresh() {
    runLock.lock();
    try {
      Instant start = clock.instant();
      if (mapper.speaksV3()) {
        return refreshV3(start);
      }
      long since = Long.parseLong(store.meta(POLL_SINCE).orElseThrow());
      RotationLoad load = store.rotationLoad();
      long buckets = mapper.pollRotated(Instant.ofEpochMilli(since), load::restart, load::add);
      long nextSince = Math.max(since, start.minus(POLL_OVERLAP).toEpochMilli());
      long marked =
          load.commit(
              POLL_SINCE, Long.toString(nextSince), LAST_POLL, Long.toString(start.toEpochMilli()));
      CacheReport report = newRun().run(buckets, marked, start, () -> false);
      store.compactIfWorthIt(); // re-mappings replace records; rewrite the file when most are
      // replaced
      return report;
    } finally {
      runLock.unlock();
    }
  }

  /**
   * The v3 refresh (see the design note): marks due the entries whose refresh time has passed (and
   * those mapped over v1), removes those whose advertising id opted out, then maps what waits.
   */
  private CacheReport refreshV3(Instant start) {
    long due = store.markDue(start.toEpochMilli());
    List<Rejection> optedOut =
        store.removeOptedOut(OptOutStatusJson.MAX_IDS, mapper::optedOutSince, start);
    for (Rejection r : optedOut) {
      listener.removed(r.identifier(), r.reason());
    }
    CacheReport run = newRun().run(0, due, start, () -> false);
    store.putMeta(LAST_POLL, Long.toString(start.toEpochMilli()));
    store.compactIfWorthIt();
    return new CacheReport(
        0,
        run.markedStale(),
        run.mapped(),
        run.remapped(),
        run.optedOut() + optedOut.size(),
        run.invalid(),
        run.elapsed());
  }

  private MappingRun newRun() {
    return new MappingRun(store, mapper, batchSize, requestsInFlight, clock, listener, added);
  }

  /** The entry for {@code identifier}, if it has been mapped (stale or not). */
  public Optional<CachedMapping> get(Identifier identifier) {
    return store.get(Objects.requireNonNull(identifier, "identifier"));
  }

  /** Every mapped entry, in the order identifiers were first added. */
  public void forEach(Consumer<CachedMapping> action) {
    store.forEach(action);
  }

  /**
   * Writes the table as CSV, UTF-8, to {@code out}: the header {@code
   * identifier,advertising_id,bucket_id} (over v3: {@code
   * identifier,advertising_id,previous_advertising_id,refresh_from}, the refresh time in epoch
   * seconds), then one row per mapped entry in the order identifiers were first added (a stale
   * entry with its previous ids). A field holding a comma, quote, CR or LF is quoted, quotes
   * doubled (RFC 4180). Rows are copied from the file's bytes, several times cheaper than
   * formatting {@link #forEach}'s objects. Does not flush or close {@code out}.
   *
   * @return the number of rows
   * @throws IOException if writing to {@code out} fails
   */
  public long writeCsv(OutputStream out) throws IOException {
    return store.writeCsv(() -> false, Objects.requireNonNull(out, "out"), mapper.speaksV3());
  }

  /**
   * {@link #writeCsv} while a mapping run ({@link #mapPendingWhile}) goes on in another thread: an
   * entry that waits to be mapped is waited for, so rows come in the order identifiers were first
   * added, each with its mapping from this run, and entries added meanwhile are included. Returns
   * once {@code mapping} is false and every row has been written; entries still waiting then (after
   * a failed run) come as {@link #writeCsv} gives them. Each time it has written every row it can
   * and waits for the run, it writes what it buffered and flushes {@code out}. An import can so
   * write its output while it maps:
   *
   * <pre>{@code
   * AtomicBoolean mapping = new AtomicBoolean(true);
   * Thread writer = new Thread(() -> cache.writeCsvWhileMapping(mapping::get, out));
   * writer.start();
   * try {
   *   cache.mapPendingWhile(reading::get); // the reading thread calls cache.wake() once done
   * } finally {
   *   mapping.set(false);
   *   cache.wake(); // the writer ends now, not at its next look
   * }
   * writer.join();
   * }</pre>
   *
   * <p>Not for use alongside {@link #refresh()}: entries it is about to mark stale could be written
   * with their old mapping first.
   *
   * @return the number of rows
   * @throws IOException if writing to {@code out} fails
   */
  public long writeCsvWhileMapping(BooleanSupplier mapping, OutputStream out) throws IOException {
    return store.writeCsv(
        Objects.requireNonNull(mapping, "mapping"),
        Objects.requireNonNull(out, "out"),
        mapper.speaksV3());
  }

  /** Every identifier not held (invalid, opted out), oldest first. */
  public void forEachRejection(Consumer<Rejection> action) {
    store.forEachRejection(action);
  }

  /** Entries held, mapped or not. */
  public long size() {
    return store.size();
  }

  /**
   * Bytes cut off the end of the file when it was opened (0 after a clean close): writes that a
   * crash left incomplete, which were never acknowledged (an {@link #addBuffered} not yet forced,
   * answers of a run's last quarter second), so the next run maps them again. Damage that no crash
   * can leave, further back than the last 64 MiB, is not cut off: opening fails instead. Worth
   * logging when it is not 0.
   */
  public long recoveredTailBytes() {
    return store.recoveredTailBytes();
  }

  /** Entries waiting to be mapped (new or stale). */
  public long pendingCount() {
    return store.todoCount();
  }

  /** When the last successful poll started, if any. */
  public Optional<Instant> lastPoll() {
    return store.meta(LAST_POLL).map(v -> Instant.ofEpochMilli(Long.parseLong(v)));
  }

  /**
   * Runs {@link #refresh()} every poll interval (default one day) in the background, first when the
   * interval since the last poll has passed (at once if there was none), so restarts keep the
   * cadence. Failures go to {@link Listener#pollFailed}.
   *
   * @throws IllegalStateException if polling was already started, or the cache is closed
   */
  public synchronized void startPolling() {
    if (closed) {
      throw new IllegalStateException("this mapping cache is closed");
    }
    if (polling != null) {
      throw new IllegalStateException("polling already started");
    }
    ScheduledExecutorService scheduler = givenScheduler;
    if (scheduler == null) {
      ownScheduler =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "veil-mapping-cache-poll");
                t.setDaemon(true);
                return t;
              });
      scheduler = ownScheduler;
    }
    Instant now = clock.instant();
    Duration wait =
        lastPoll()
            .map(last -> Duration.between(now, last.plus(pollInterval)))
            .orElse(Duration.ZERO);
    long initialDelay = Math.max(0, wait.toMillis());
    polling =
        scheduler.scheduleWithFixedDelay(
            this::pollQuietly, initialDelay, pollInterval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void pollQuietly() {
    try {
      refresh();
    } catch (RuntimeException e) {
      if (!isClosed()) { // a poll that close() stopped has not failed
        tellPollFailed(e);
      }
    }
  }

  /**
   * Tells the listener; a failure of the listener's own goes to the thread's uncaught-exception
   * handler instead of out of the task, which would end the polling for good (a periodic task that
   * throws is never run again).
   */
  private void tellPollFailed(RuntimeException failure) {
    try {
      listener.pollFailed(failure);
    } catch (RuntimeException listenerFailure) {
      listenerFailure.addSuppressed(failure);
      Thread thread = Thread.currentThread();
      thread.getUncaughtExceptionHandler().uncaughtException(thread, listenerFailure);
    }
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  /**
   * Stops polling and closes the file. A background poll ({@link #startPolling()}) under way is
   * stopped (its thread is interrupted, on a {@link Builder#scheduler} of the caller's too): it
   * sends no more requests and retries none, a request on the wire ends at its answer or at the
   * request timeout, whichever comes first, and its answer is stored; what the poll had not mapped
   * waits for the next {@link #mapPending()} or {@link #refresh()}, and {@link Listener#pollFailed}
   * is not told. A run that a caller started ({@link #mapPending()}, {@link #refresh()}) is waited
   * for (interrupting its thread stops it the same way, with an exception).
   */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      if (polling != null) {
        polling.cancel(true);
      }
      if (ownScheduler != null) {
        ownScheduler.shutdownNow();
      }
    }
    runLock.lock();
    try {
      store.close();
    } finally {
      runLock.unlock();
    }
  }

  /**
   * Configures a {@link MappingCache}; from {@link VeilClient#mappingCache(Path)}. Not thread-safe.
   */
  public static final class Builder {
    private final VeilClient client;
    private final Path file;
    private Listener listener = new Listener() {};
    private Clock clock = Clock.systemUTC();
    private Duration pollInterval = Duration.ofDays(1);
    private ScheduledExecutorService scheduler;
    private int requestsInFlight = 1;
    private RetryPolicy retryPolicy;

    private Builder(VeilClient client, Path file) {
      this.client = Objects.requireNonNull(client, "client");
      this.file = Objects.requireNonNull(file, "file");
    }

    /** Receives progress and removals (default: none). */
    public Builder listener(Listener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** The clock for mapping and poll times (default: the system clock, UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * How often {@link #startPolling()} polls, 1 ms to 365 days (default one day, the recommended
     * cadence).
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = Durations.period(pollInterval, "pollInterval");
      return this;
    }

    /**
     * How many mapping requests a run keeps on the wire at once, 1 to {@value
     * #MAX_REQUESTS_IN_FLIGHT} (default 1: batches are sent one after the other). With 2, the
     * server maps one batch while this client reads and stores the previous answer, which matters
     * when both share a machine or the network is slow; answers are then stored as they arrive,
     * possibly out of order, with the same guarantees. Ask the server's operator before going
     * higher.
     */
    public Builder requestsInFlight(int requestsInFlight) {
      if (requestsInFlight < 1 || requestsInFlight > MAX_REQUESTS_IN_FLIGHT) {
        throw new IllegalArgumentException(
            "requestsInFlight must be 1 to " + MAX_REQUESTS_IN_FLIGHT);
      }
      this.requestsInFlight = requestsInFlight;
      return this;
    }

    /**
     * The retries of the cache's requests (runs and polls). Default: the {@link VeilClient}'s own
     * policy if one was given to {@link VeilClient.Builder#retryPolicy}; otherwise {@link
     * MappingCache#BULK_RETRIES}, then {@link MappingCache#BULK_RETRIES_AFTER_ANSWER} once the
     * server has answered one of the cache's requests, so that a run waits out the key's rate limit
     * and a restart of the server. A policy given here applies throughout.
     */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /** The scheduler for {@link #startPolling()} (default: a daemon thread of the cache's own). */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Opens (or creates, mode 0600) the file.
     *
     * @throws java.io.UncheckedIOException if it cannot be opened
     */
    public MappingCache build() {
      return new MappingCache(this);
    }
  }
}
