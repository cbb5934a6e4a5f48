package dev.veil.sdk.internal.cache;

import dev.veil.sdk.AddResult;
import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.Rejection;
import dev.veil.sdk.internal.MapAnswer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The store behind a {@link dev.veil.sdk.MappingCache}: an append-only {@link LogFile} of {@link
 * Records}, and in memory ({@link StoreState}) where each entry's records are, an index by
 * identifier, the settings and the rejections. Every write appends one frame (or a few) and either
 * returns once it is on disk or leaves that to a later {@link #sync} (buffered adds, a run's
 * answers); readers find values in the file through the positions. Which frames a crash can cost,
 * and why every prefix of the file is a consistent store, is in {@link LogFile}.
 *
 * <p>Costs per entry: adding is a hash, an index probe and a copy into the frame; storing a mapping
 * is a copy; memory is 32 to 64 bytes. Reads of values are positional reads through cached windows.
 * When more than half of the records have been replaced (re-mappings, removals), {@link
 * #compactIfWorthIt()} rewrites the file with only the current records (see {@link Compaction}).
 *
 * <p>Thread-safe. A mutex guards the in-memory state and the appends (so positions handed out match
 * the file); syncs happen outside it, so one thread's force covers others' frames (group commit). A
 * read-write lock keeps positions valid: every operation holds its read side, compaction (which
 * renumbers) its write side. Callers serialize mapping runs (entry numbers in a run's hands must
 * not change).
 */
public final class MappingStore implements AutoCloseable {
  /** Longest identifier held or recorded, in UTF-8 bytes (valid ones are under 300). */
  public static final int MAX_VALUE_BYTES = 1 << 20;

  /** Entries {@link #reserve} makes room for at most. */
  private static final int MAX_RESERVE = 1 << 24;

  /** Memory {@link #reserve} takes per entry: 16 bytes of entry table, 16 to 32 of index. */
  private static final int BYTES_PER_RESERVED_ENTRY = 48;

  /** Symbolic links followed from the given name at most (as Linux's own limit). */
  private static final int MAX_LINKS = 40;

  /** Answer frames kept for reuse at most. */
  private static final int SPARE_ANSWER_FRAMES = 4;

  /**
   * What storing one answer did; {@code removed} lists the entries taken out, {@code end} is where
   * its frame ends (for {@link #sync}).
   */
  public record Applied(
      int mapped, int remapped, int optedOut, int invalid, List<Rejection> removed, long end) {}

  private final Path path;
  private final CacheLock lock;
  private final Fingerprint fingerprint;
  private final ReentrantReadWriteLock positions = new ReentrantReadWriteLock();
  private final Object guard = new Object();
  private final Frame addFrame = new Frame(256 * 1024);

  /**
   * Answer frames (half a megabyte for 5,000 answers) kept for the next answers, rather than
   * allocated and collected once per answer: a run has a few answers in hand at a time.
   */
  private final ConcurrentLinkedQueue<Frame> spareAnswerFrames = new ConcurrentLinkedQueue<>();

  /** Rows the last {@link #writeCsv} took from answers handed over (tests). */
  volatile long lastExportRowsFromAnswers;

  /** Answers handed to a CSV export that follows a run. */
  private final AnswerHandoff handoff = new AnswerHandoff();

  /** Reads the values of pending entries; one mapping run at a time uses it (guarded by itself). */
  private LogReader pendingReader;

  /** Counts writes, for walks that follow a mapping run. */
  private final Signal changes = new Signal(20, "mappings");

  private LogFile log;
  private StoreState state;
  private LogReader lookups;
  private long truncatedBytes;

  private MappingStore(Path path, CacheLock lock, Fingerprint fingerprint) {
    this.path = path;
    this.lock = lock;
    this.fingerprint = fingerprint;
  }

  /**
   * Opens the file (creating it, mode 0600), recovering from a crash and compacting if worth it.
   *
   * @throws UncheckedIOException if it is in use, not a mapping cache, damaged or unreadable
   */
  public static MappingStore open(Path path) {
    return open(path, Fingerprint.random());
  }

  /** Tests: a chosen fingerprint (e.g. one under which every identifier collides). */
  static MappingStore open(Path given, Fingerprint fingerprint) {
    Path path;
    CacheLock lock;
    try {
      path = realLocation(given);
      lock = CacheLock.acquire(path, given);
    } catch (IOException e) {
      throw failure("open " + given, e);
    }
    MappingStore store = new MappingStore(path, lock, fingerprint);
    try {
      Files.deleteIfExists(Compaction.temporaryFile(path)); // a compaction that did not finish
      store.load();
      store.truncatedBytes = store.log.truncatedBytes();
      store.compactIfWorthIt();
      return store;
    } catch (IOException | RuntimeException e) {
      store.closeAfter(e);
      throw e instanceof IOException io ? failure("open " + path, io) : (RuntimeException) e;
    }
  }

  /**
   * Where the cache file really is: a symbolic link is followed to its target (which need not exist
   * yet) and the directories are named by their real paths, creating missing ones. Every name of
   * one file so gives the same lock, a compaction renames into the target's directory rather than
   * over the link, and a new file is created (mode 0600) where the link points.
   */
  static Path realLocation(Path file) throws IOException {
    Path at = file.toAbsolutePath();
    for (int links = 0; Files.isSymbolicLink(at); links++) {
      if (links == MAX_LINKS) {
        throw new FileSystemException(file.toString(), null, "too many levels of symbolic links");
      }
      at = at.resolveSibling(Files.readSymbolicLink(at));
    }
    Path parent = at.getParent();
    if (parent == null || at.getFileName() == null) {
      return at;
    }
    Files.createDirectories(parent);
    return parent.toRealPath().resolve(at.getFileName());
  }

  private void load() throws IOException {
    StoreState fresh = new StoreState(fingerprint);
    log = LogFile.open(path, fresh);
    state = fresh;
    lookups = new LogReader(log, 2);
    pendingReader = new LogReader(log, 1);
  }

  /**
   * Bytes of an incomplete write cut off the end when the file was opened (0 after a clean close).
   */
  public long recoveredTailBytes() {
    return truncatedBytes;
  }

  // --- settings ---

  public Optional<String> meta(String key) {
    synchronized (guard) {
      return Optional.ofNullable(state.meta.get(key));
    }
  }

  /** Sets values durably, all at once ({@code key, value, key, value...}). */
  public void putMeta(String... keysAndValues) {
    write(
        () -> {
          Frame f = new Frame(256);
          for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            f.meta(keysAndValues[i], keysAndValues[i + 1]);
          }
          log.append(f.seal());
          for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            state.putMeta(keysAndValues[i], keysAndValues[i + 1]);
          }
        });
  }

  // --- adding ---

  /**
   * Adds {@code valid} identifiers (each once) and records {@code invalid} ones as rejected, and
   * sets {@code checkpointKey} (when not null) in the last frame, after the identifiers it covers.
   *
   * @throws IllegalArgumentException if a value is longer than {@link #MAX_VALUE_BYTES}
   */
  public AddResult add(
      List<Identifier> valid,
      List<Identifier> invalid,
      Instant now,
      String checkpointKey,
      String checkpointValue) {
    return add(valid, invalid, now, checkpointKey, checkpointValue, true);
  }

  /**
   * {@link #add}, waiting for the disk only if {@code sync} (else it is on disk after a later
   * sync).
   */
  public AddResult add(
      List<Identifier> valid,
      List<Identifier> invalid,
      Instant now,
      String checkpointKey,
      String checkpointValue,
      boolean sync) {
    return add(Values.of(valid), invalid, now, checkpointKey, checkpointValue, sync);
  }

  /**
   * {@link #add(List, List, Instant, String, String, boolean)} of values (all valid) in one array.
   */
  public AddResult add(
      Values valid,
      List<Identifier> invalid,
      Instant now,
      String checkpointKey,
      String checkpointValue,
      boolean sync) {
    Adding adding = new Adding(valid, fingerprint);
    write(
        () ->
            adding.write(
                this, addFrame, invalid, now.toEpochMilli(), checkpointKey, checkpointValue),
        sync);
    return new AddResult(adding.added, valid.size() - adding.added, invalid.size());
  }

  /**
   * Makes room in memory for about {@code entries} more, up to 16 million and up to an eighth of
   * the JVM's heap (beyond, the tables grow as usual, as they must): a bulk import that knows its
   * size then never copies its tables as they grow, and a guess too high cannot take the heap.
   */
  public void reserve(long entries) {
    long heapShare = Runtime.getRuntime().maxMemory() / 8 / BYTES_PER_RESERVED_ENTRY;
    int more = (int) Math.min(Math.max(entries, 0), Math.min(MAX_RESERVE, heapShare));
    synchronized (guard) {
      state.entries.reserve(state.entries.count() + more);
      state.index.reserve(state.entries.held() + more);
    }
  }

  // --- mapping ---

  /** Entries held, mapped or not. */
  public long size() {
    synchronized (guard) {
      checkUsable();
      return state.entries.held();
    }
  }

  /** Entries waiting to be mapped: without a mapping, or with a stale one. */
  public long todoCount() {
    synchronized (guard) {
      checkUsable();
      return state.entries.pending();
    }
  }

  /**
   * Up to {@code limit} entries waiting to be mapped with numbers above {@code after}, in order.
   */
  public PendingBatch pending(int after, int limit) {
    return read(
        () -> {
          int[] picked = new int[limit];
          long[] addAt = new long[limit];
          boolean[] before = new boolean[limit];
          int n = 0;
          synchronized (guard) {
            EntryTable entries = state.entries;
            for (int e = after + 1; e < entries.count() && n < limit; e++) {
              if (entries.isPending(e)) {
                picked[n] = e;
                addAt[n] = entries.addAt(e);
                before[n++] = entries.mapAt(e) >= 0;
              }
            }
          }
          PendingBatch batch = new PendingBatch(n);
          LogReader reader = pendingReader;
          synchronized (reader) {
            for (int i = 0; i < n; i++) {
              Records.Cursor c = reader.record(addAt[i]);
              c.u8();
              int kind = c.u8();
              int length = c.varint32();
              batch.add(picked[i], kind, before[i], c.b, c.pos, length);
            }
          }
          return batch;
        });
  }

  /**
   * Stores the answer for {@code part} ({@code answer} result {@code i} for its entry {@code i}):
   * mapped entries get their ids and {@code mappedAt}; unmapped ones are removed and recorded as
   * rejected.
   */
  public Applied apply(PendingBatch part, MapAnswer answer, Instant mappedAt, Instant now) {
    Applied applied = append(part, answer, mappedAt, now);
    sync(applied.end());
    return applied;
  }

  /**
   * {@link #apply} without waiting for the disk: the answer is stored (and visible) but durable
   * only after {@link #sync}{@code (applied.end())}. A run stores answers as they come and syncs
   * them in groups.
   */
  public Applied append(PendingBatch part, MapAnswer answer, Instant mappedAt, Instant now) {
    if (handoff.isOpen()) {
      handoff.awaitRoom(); // outside the store's lock: the export reads the store meanwhile
    }
    Frame buffer = spareAnswerFrames.poll();
    if (buffer == null) {
      buffer = new Frame(AnswerFrame.expectedBytes(part.size()));
    }
    try {
      AnswerFrame frame = AnswerFrame.of(part, answer, mappedAt, now, buffer);
      long end =
          write(
              () -> {
                long base = log.append(frame.seal());
                frame.applyTo(state, base);
                if (handoff.isOpen()) {
                  handoff.offer(
                      part,
                      answer,
                      frame.mapPositions(base)); // before the export can see the entries mapped
                }
              },
              false);
      return frame.applied(end);
    } finally {
      buffer.reset(); // appended (or failed): its bytes are no longer needed
      if (spareAnswerFrames.size() < SPARE_ANSWER_FRAMES) {
        spareAnswerFrames.add(buffer);
      }
    }
  }

  /** Wakes walks that follow a run and wait for its writes, so that they check their condition. */
  public void wakeWalks() {
    changes.add(0);
  }

  /** Returns once everything written so far is on disk. */
  public void sync() {
    long end;
    synchronized (guard) {
      checkUsable();
      end = log.end();
    }
    sync(end);
  }

  /** Returns once everything written up to {@code end} is on disk (one force may serve many). */
  public void sync(long end) {
    positions.readLock().lock();
    try {
      log.syncTo(end);
      changes.add(1);
    } catch (IOException e) {
      throw failure("write " + path, e);
    } finally {
      positions.readLock().unlock();
    }
  }

  /**
   * Collects a poll's rotated buckets and marks the mappings they make stale; see {@link
   * RotationLoad}.
   */
  public RotationLoad rotationLoad() {
    return new RotationLoad(this);
  }

  /** Marks stale, with the settings, the entries {@code marking} selects; returns how many. */
  long markStale(StaleMarking marking, String... keysAndValues) {
    return read(
        () -> {
          int[] marked = marking.select(this);
          long[] count = {0};
          write(() -> count[0] = StaleMarking.commit(this, marked, keysAndValues));
          return count[0];
        });
  }

  /**
   * Marks stale, with the settings, the current mappings due at {@code nowMillis}: those mapped
   * over v3 whose refresh time has passed, and those mapped over v1 (which have none); returns how
   * many.
   */
  public long markDue(long nowMillis, String... keysAndValues) {
    return read(
        () -> {
          int[] marked;
          synchronized (guard) {
            EntryTable entries = state.entries;
            int[] due = new int[1024];
            int n = 0;
            for (int e = 0; e < entries.count(); e++) {
              if (entries.mapAt(e) >= 0
                  && !entries.isStale(e)
                  && entries.refreshSeconds(e) * 1000 <= nowMillis) {
                if (n == due.length) {
                  due = Arrays.copyOf(due, n * 2);
                }
                due[n++] = e;
              }
            }
            marked = Arrays.copyOf(due, n);
          }
          long[] count = {0};
          write(() -> count[0] = StaleMarking.commit(this, marked, keysAndValues));
          return count[0];
        });
  }

  /**
   * Asks {@code check} about the advertising id of every current mapping, {@code chunk} at a time,
   * and removes (recording them as rejected, opted out) the entries it lists; returns them. Each
   * chunk's removals are on disk before the next chunk is asked about.
   */
  public List<Rejection> removeOptedOut(int chunk, OptOutSweep.Check check, Instant now) {
    return read(() -> OptOutSweep.run(this, chunk, check, now));
  }

  /** Under the guard: appends {@code frame}, then applies it at its payload's position; syncs. */
  void appendAndApply(Frame frame, LongConsumer apply) {
    write(
        () -> {
          long base = log.append(frame.seal());
          apply.accept(base);
        });
  }

  // --- reading ---

  public Optional<CachedMapping> get(Identifier identifier) {
    Values value = new Values(1);
    if (!value.add(identifier)) {
      return Optional.empty(); // not well-formed: never added
    }
    Adding one = new Adding(value, fingerprint);
    return read(
        () -> {
          long at;
          boolean stale;
          synchronized (guard) {
            int entry = one.find(this, 0);
            if (entry < 0 || state.entries.mapAt(entry) < 0) {
              return Optional.empty();
            }
            at = state.entries.mapAt(entry);
            stale = state.entries.isStale(entry);
          }
          return Optional.of(
              StoredMapping.read(new LogReader(log, 1).record(at)).toCached(identifier, stale));
        });
  }

  /** Every mapped entry in the order it was first added. */
  public void forEach(Consumer<CachedMapping> action) {
    read(
        () -> {
          Export.walk(this, () -> false, Export.objects(action));
          return null;
        });
  }

  /**
   * Writes the mapped entries as CSV to {@code out}, header first, following a run while {@code
   * mapping} is true (an entry that waits to be mapped is waited for); returns the number of rows.
   * Does not flush or close {@code out}.
   *
   * @throws IOException if writing to {@code out} fails (the cache's own failures are unchecked)
   */
  public long writeCsv(BooleanSupplier mapping, OutputStream out) throws IOException {
    return writeCsv(mapping, out, false);
  }

  /**
   * {@link #writeCsv(BooleanSupplier, OutputStream)} with v3's columns ({@code
   * identifier,advertising_id,previous_advertising_id,refresh_from}) when {@code v3}.
   */
  public long writeCsv(BooleanSupplier mapping, OutputStream out, boolean v3) throws IOException {
    positions.readLock().lock();
    try {
      synchronized (guard) {
        checkUsable();
      }
      Export.CsvRows rows = new Export.CsvRows(out, v3);
      rows.header();
      handoff.open();
      try {
        Export.walk(this, mapping, rows);
      } finally {
        handoff.close();
      }
      rows.flush();
      lastExportRowsFromAnswers = rows.rowsFromAnswers();
      return rows.rows();
    } finally {
      positions.readLock().unlock();
    }
  }

  /**
   * Every identifier not held (invalid, opted out), once each with its latest reason, oldest first.
   */
  public void forEachRejection(Consumer<Rejection> action) {
    read(
        () -> {
          long[] at;
          synchronized (guard) {
            at = state.rejections();
          }
          Rejections.latest(new LogReader(log, 2), at).forEach(action);
          return null;
        });
  }

  // --- compaction ---

  /**
   * Rewrites the file with only the current records if more than half of them were replaced, unless
   * another thread is using the cache at the moment. Callers must not be inside a mapping run.
   */
  public void compactIfWorthIt() {
    // Not lock(): a writer queued behind a long read (an export following a run) would block the
    // run's own reads and writes. A busy cache is compacted another time.
    if (!positions.writeLock().tryLock()) {
      return;
    }
    try {
      synchronized (guard) {
        checkUsable();
        long garbage = state.garbageRecords();
        if (garbage < 10_000 || garbage <= state.entries.held()) {
          return;
        }
        Compaction.write(log, state, Compaction.temporaryFile(path));
        Compaction.replace(path);
        LogFile old = log;
        load();
        old.close();
      }
    } catch (IOException e) {
      throw failure("compact " + path, e);
    } finally {
      positions.writeLock().unlock();
    }
  }

  // --- plumbing ---

  /** Work that appends frames, under the guard; the frames are then synced (outside it). */
  interface Write {
    void run() throws IOException;
  }

  /** Work that reads positions (and files), under the read side of the positions lock. */
  interface Read<T> {
    T run() throws IOException;
  }

  private void write(Write work) {
    write(work, true);
  }

  /**
   * Runs {@code work} under the guard and, if {@code sync}, waits for the disk; returns the end
   * written.
   */
  private long write(Write work, boolean sync) {
    positions.readLock().lock();
    try {
      long end;
      synchronized (guard) {
        checkUsable();
        work.run();
        end = log.end();
      }
      if (sync) {
        log.syncTo(end);
      }
      changes.add(1);
      return end;
    } catch (IOException e) {
      throw failure("write " + path, e);
    } finally {
      positions.readLock().unlock();
    }
  }

  private <T> T read(Read<T> work) {
    positions.readLock().lock();
    try {
      synchronized (guard) {
        checkUsable();
      }
      return work.run();
    } catch (IOException e) {
      throw failure("read " + path, e);
    } finally {
      positions.readLock().unlock();
    }
  }

  StoreState state() {
    return state;
  }

  LogFile log() {
    return log;
  }

  /** A reader for lookups under the guard. */
  LogReader lookups() {
    return lookups;
  }

  Object guard() {
    return guard;
  }

  Signal changes() {
    return changes;
  }

  AnswerHandoff handoff() {
    return handoff;
  }

  private void checkUsable() {
    if (log == null) {
      throw new IllegalStateException("mapping cache " + path + " is closed");
    }
  }

  @Override
  public void close() {
    positions.writeLock().lock();
    try {
      synchronized (guard) {
        if (log == null) {
          return;
        }
        try (CacheLock l = lock;
            LogFile file = log) {
          log = null;
          file.syncTo(file.end()); // buffered adds
        }
      }
    } catch (IOException e) {
      throw failure("close " + path, e);
    } finally {
      positions.writeLock().unlock();
    }
  }

  private void closeAfter(Exception failure) {
    try {
      if (log != null) {
        log.close();
      }
      lock.close();
    } catch (IOException suppressed) {
      failure.addSuppressed(suppressed);
    }
  }

  static UncheckedIOException failure(String what, IOException e) {
    return new UncheckedIOException("mapping cache: cannot " + what + ": " + e.getMessage(), e);
  }
}
