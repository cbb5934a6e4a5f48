package dev.veil.cli.map;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.internal.ApiCaller;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.MapJson;
import dev.veil.sdk.internal.Uninterruptibly;
import dev.veil.sdk.internal.ValueList;
import dev.veil.sdk.internal.cache.Values;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@code veil map} import whose output is its own store: the input is read in chunks, each
 * chunk's identifiers are checked and sent in requests (of {@value #FIRST_BATCH} identifiers first,
 * doubling to the batch size; {@value #IN_FLIGHT} on the wire at once), and the answers are written
 * as rows, in input order, to the temporary output files ({@link OutputFiles}). Every quarter
 * second (or 4 MB of rows) both files are forced to disk and a checkpoint is recorded ({@link
 * MapState}): the input's lines behind the rows on disk. A run that stops at any point, SIGKILL
 * included, is resumed by the same command: the files are cut back to the last checkpoint and the
 * input is read on from its line, so no row is lost or written twice.
 *
 * <p>Threads: the caller's reads and builds requests, four send them, one writes. A failed request
 * stops the reading; the rows already answered in order are written and checkpointed, then the
 * failure is thrown.
 */
final class OutputImport {
  /** Identifiers of the run's first request: it leaves as soon as they are read. */
  static final int FIRST_BATCH = 1_000;

  /** Requests on the wire at once: the server always has the next while this process works. */
  static final int IN_FLIGHT = 4;

  private static final long CHECKPOINT_EVERY_NANOS = 250_000_000L;

  /**
   * Output bytes after which a checkpoint is recorded sooner than every quarter second: the last
   * one forces only what came after it, which the run waits for at its end.
   */
  private static final long CHECKPOINT_EVERY_BYTES = 4L << 20;

  private static final String INVALID = MapOutcome.Reason.INVALID_IDENTIFIER.wireName();
  private static final String OPTOUT = MapOutcome.Reason.OPTED_OUT.wireName();

  /** What the import did; counts of this run unless said. */
  record Result(
      long lines,
      long skippedLines,
      long read,
      long invalid,
      long sent,
      long mapped,
      long optedOut,
      long rows,
      long rejectedRows,
      boolean alreadyDone) {}

  /**
   * Receives progress: identifiers answered or rejected so far in this run, and about how many
   * there are.
   */
  interface Progress {
    void progress(long done, long total);
  }

  private final ApiCaller caller;
  private final boolean hashLocally;
  private final int batchSize;
  private final int batchBytes;
  private final Progress progress;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  /**
   * Row buffers the writer is done with, for the senders to fill again: a part's rows take about
   * half a megabyte, which a new array would have the JVM clear first.
   */
  private final BlockingQueue<byte[]> spareRows = new ArrayBlockingQueue<>(2 * IN_FLIGHT);

  OutputImport(
      ApiCaller caller, boolean hashLocally, int batchSize, int batchBytes, Progress progress) {
    this.caller = caller;
    this.hashLocally = hashLocally;
    this.batchSize = batchSize;
    this.batchBytes = batchBytes;
    this.progress = progress;
  }

  /**
   * One request's identifiers (or none: only rows rejected here), and the lines read once it is
   * written.
   */
  @SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
  private record Part(
      int seq,
      IdentityInput kind,
      ValueList shown,
      ValueList sent,
      long linesAfter,
      byte[] rejectedRows,
      int rejectedLength,
      int rejectedCount) {}

  /** A part's rows, ready to write. */
  @SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
  private record Rows(
      int seq,
      byte[] rows,
      int length,
      int count,
      byte[] rejected,
      int rejectedLength,
      int rejectedCount,
      int optedOut,
      long linesAfter,
      long sentAtMillis) {}

  private static final Part END = new Part(-1, null, null, null, -1, null, 0, 0);

  /**
   * Imports {@code file} (described by {@code source}) into {@code out}, resuming where {@code
   * state} says an earlier run of the same source stopped.
   *
   * @throws IOException if a file cannot be read or written
   */
  Result run(IdentifierFile file, String source, MapState state, OutputFiles files)
      throws IOException {
    files.settle(state);
    if (source.equals(state.input()) && state.done()) {
      if (files.outputExists()) {
        files.discardTemporaryFiles(); // a refresh's, stopped before its commit
        MapState.Checkpoint last = state.last();
        return new Result(
            last.lines(), last.lines(), 0, 0, 0, 0, 0, last.rows(), last.rejectedRows(), true);
      }
      // The output was removed since: map the input again.
    }
    // A complete import's checkpoint is no place to resume from: its temporary files, if any, are a
    // refresh's.
    boolean resume = !state.done() && source.equals(state.input()) && files.canResume(state.last());
    MapState.Checkpoint start = resume ? state.last() : OutputFiles.FRESH;
    // The writer records the new import (or cuts the files back) before its first rows, while the
    // first requests are on their way: those four forced writes are off the path to the first
    // answer.
    Writer writer = new Writer(files, state, start, resume ? null : source, file);
    BlockingQueue<Part> parts = new ArrayBlockingQueue<>(IN_FLIGHT);
    Threads threads = new Threads(parts, writer);
    threads.startFirst();
    Reader reader = new Reader(parts, threads);
    long lines;
    try {
      lines = file.read(start.lines(), Math.min(FIRST_BATCH, batchSize), batchSize, reader);
      reader.finish(lines);
    } catch (IOException | RuntimeException e) {
      failure.compareAndSet(null, e);
      lines = -1;
    } finally {
      threads.startTheRest();
      writer.finishAt(reader.seq);
      for (int i = 0; i < IN_FLIGHT; i++) {
        Uninterruptibly.put(parts, END);
      }
      Uninterruptibly.join(writer);
    }
    rethrow(failure.get());
    state.markDone();
    // The INSTALLED record after the renames is left to the next run's settle (or this run's
    // refresh): a forced write fewer at the end of every import, which the caller would wait for.
    files.finishRenames(state.last().rejectedRows());
    MapState.Checkpoint last = state.last();
    return new Result(
        lines,
        start.lines(),
        reader.read,
        reader.invalid,
        reader.sent,
        writer.mapped,
        writer.optedOut,
        last.rows(),
        last.rejectedRows(),
        false);
  }

  /**
   * The run's threads. One sender starts at once; the other senders and the writer only once the
   * first part is queued: on a machine of one core, starting them earlier (and the writer's forced
   * writes) came before the first request, which the server waits for.
   */
  private final class Threads {
    private final BlockingQueue<Part> parts;
    private final Writer writer;
    private boolean started;

    Threads(BlockingQueue<Part> parts, Writer writer) {
      this.parts = parts;
      this.writer = writer;
    }

    /** Starts the first sender. */
    void startFirst() {
      new Sender(parts, writer).start();
    }

    /** Starts the other senders and the writer, once. */
    void startTheRest() {
      if (started) {
        return;
      }
      started = true;
      for (int i = 1; i < IN_FLIGHT; i++) {
        new Sender(parts, writer).start();
      }
      writer.start();
    }
  }

  /**
   * A sender thread (a class, not a lambda, whose linkage would cost the first request about a
   * millisecond).
   */
  private final class Sender extends Thread {
    private final BlockingQueue<Part> parts;
    private final Writer writer;

    Sender(BlockingQueue<Part> parts, Writer writer) {
      super("veil-map-send");
      setDaemon(true);
      this.parts = parts;
      this.writer = writer;
    }

    @Override
    public void run() {
      send(parts, writer);
    }
  }

  /**
   * On a sender thread: sends parts until {@link #END}; after a failure, only passes them on
   * unsent.
   */
  @SuppressWarnings("ReferenceEquality") // END is a sentinel: that very object ends the queue
  private void send(BlockingQueue<Part> parts, Writer writer) {
    for (Part p = Uninterruptibly.take(parts); p != END; p = Uninterruptibly.take(parts)) {
      if (failure.get() != null) {
        continue;
      }
      try {
        long sentAt =
            System
                .currentTimeMillis(); // before it leaves: mapped with a salt of this time or later
        ValueList sent = p.sent();
        MapAnswer answer = p.kind() == null ? null : MapJson.call(caller, p.kind(), sent);
        writer.put(rows(p, answer, sentAt));
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
        writer.wake();
      }
    }
  }

  /**
   * The CSV rows of a part's answer: mapped identifiers to the output, the others to the rejected
   * file.
   */
  private Rows rows(Part p, MapAnswer answer, long sentAt) {
    ValueList shown = p.shown();
    int n = shown == null ? 0 : shown.size();
    int expected = n * 96 + 64;
    byte[] spare = spareRows.poll();
    CsvBuffer rows =
        spare != null && spare.length >= expected ? new CsvBuffer(spare) : new CsvBuffer(expected);
    CsvBuffer rejected = new CsvBuffer(p.rejectedLength() + 256);
    rejected.raw(p.rejectedRows(), 0, p.rejectedLength());
    int count = 0;
    int rejectedCount = p.rejectedCount();
    int optedOut = 0;
    boolean plainIds =
        answer != null
            && answer.idsPlainCsv(); // the scanner saw no comma, quote or line break in them
    for (int i = 0; i < n; i++) {
      if (answer.isMapped(i)) {
        rows.field(shown.bytes(), shown.start(i), shown.length(i));
        rows.comma();
        if (plainIds) {
          rows.raw(answer.data(), answer.advertisingIdStart(i), answer.advertisingIdLength(i));
          rows.comma();
          rows.raw(answer.data(), answer.bucketIdStart(i), answer.bucketIdLength(i));
        } else {
          rows.field(answer.data(), answer.advertisingIdStart(i), answer.advertisingIdLength(i));
          rows.comma();
          rows.field(answer.data(), answer.bucketIdStart(i), answer.bucketIdLength(i));
        }
        rows.newline();
        count++;
      } else {
        String reason = answer.reason(i);
        rejected.field(shown.bytes(), shown.start(i), shown.length(i));
        rejected.comma();
        rejected.text(reason);
        rejected.newline();
        rejectedCount++;
        optedOut += OPTOUT.equals(reason) ? 1 : 0;
      }
    }
    return new Rows(
        p.seq(),
        rows.bytes(),
        rows.length(),
        count,
        rejected.bytes(),
        rejected.length(),
        rejectedCount,
        optedOut,
        p.linesAfter(),
        sentAt);
  }

  /** On the caller's thread: turns chunks of the input into parts. */
  private final class Reader implements IdentifierFile.ChunkSink {
    private final BlockingQueue<Part> parts;
    private final Threads threads;
    int seq;
    long read;
    long invalid;
    long sent;
    private int limit = Math.min(FIRST_BATCH, batchSize);
    private IdentityInput kind;
    private ValueList shown;

    /** Bytes of the values sent in the current part, for a quick bound of its body. */
    private long sentBytes;

    private ValueList hashes;
    private CsvBuffer rejected = new CsvBuffer(256);
    private int rejectedCount;

    Reader(BlockingQueue<Part> parts, Threads threads) {
      this.parts = parts;
      this.threads = threads;
    }

    /**
     * A chunk ends a part: the chunk's last part carries its line count, which a checkpoint may
     * record.
     */
    @Override
    public void accept(IdentifierChunk chunk, long linesRead) throws IOException {
      if (failure.get() != null) {
        throw new IOException("stopped reading: mapping failed");
      }
      Values v = chunk.values();
      byte[] a = v.array();
      for (int i = 0; i < v.size(); i++) {
        read++;
        IdentityInput k = v.kind(i);
        if (!v.isValid(i)) {
          reject(a, v.start(i), v.length(i));
          continue;
        }
        if (hashLocally) {
          Identifier hashed = hashOf(v.identifier(i));
          if (hashed == null) {
            reject(a, v.start(i), v.length(i));
            continue;
          }
          byte[] h = hashed.value().getBytes(StandardCharsets.US_ASCII);
          add(hashed.kind(), a, v.start(i), v.length(i), h, 0, h.length, -1);
        } else {
          add(k, a, v.start(i), v.length(i), a, v.start(i), v.length(i), -1);
        }
      }
      for (Identifier m : chunk.malformed()) {
        read++;
        byte[] text = m.value().getBytes(StandardCharsets.UTF_8); // unpaired surrogates become '?'
        reject(text, 0, text.length);
      }
      flush(linesRead);
      limit = Math.min(batchSize, limit * 2);
    }

    /** Queues what is left (the last chunk was empty or none was read). */
    void finish(long lines) throws IOException {
      if (shown != null || rejectedCount > 0) {
        flush(lines);
      }
    }

    private void reject(byte[] b, int off, int len) {
      invalid++;
      rejected.field(b, off, len);
      rejected.comma();
      rejected.text(INVALID);
      rejected.newline();
      rejectedCount++;
    }

    private void add(
        IdentityInput sentKind,
        byte[] b,
        int off,
        int len,
        byte[] s,
        int sOff,
        int sLen,
        long linesAfter)
        throws IOException {
      if (shown != null
          && (sentKind != kind || shown.size() >= limit || wouldOverflow(s, sOff, sLen))) {
        flush(linesAfter);
      }
      if (shown == null) {
        kind = sentKind;
        shown = new ValueList(limit, limit * 32);
        hashes = hashLocally ? new ValueList(limit, limit * 48) : null;
      }
      shown.add(b, off, len);
      if (hashLocally) {
        hashes.add(s, sOff, sLen);
      }
      sentBytes += sLen;
    }

    /**
     * Whether the body would pass {@code batchBytes} with one more value. An escape takes at most
     * six bytes for one, so the values' own bytes give a bound that nearly always settles it
     * without scanning them again; only a part that large is measured exactly.
     */
    private boolean wouldOverflow(byte[] s, int sOff, int sLen) {
      long worst = MapJson.ENVELOPE_BYTES + 6 * (sentBytes + sLen) + 3L * (shown.size() + 1);
      return worst > batchBytes
          && MapJson.ENVELOPE_BYTES
                  + sentList().jsonBytesBound()
                  + ValueList.jsonBytesBound(s, sOff, sLen)
              > batchBytes;
    }

    private ValueList sentList() {
      return hashLocally ? hashes : shown;
    }

    /** Queues the current part; {@code linesAfter} -1 when it ends inside a chunk. */
    private void flush(long linesAfter) throws IOException {
      Part p =
          new Part(
              seq++,
              shown == null ? null : kind,
              shown,
              shown == null ? null : sentList(),
              linesAfter,
              rejected.bytes(),
              rejected.length(),
              rejectedCount);
      sent += shown == null ? 0 : shown.size();
      shown = null;
      hashes = null;
      sentBytes = 0;
      rejected = new CsvBuffer(256);
      rejectedCount = 0;
      try {
        parts.put(p);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while reading", e);
      }
      threads.startTheRest();
    }
  }

  /** The hash sent for {@code id} when hashing here, or null if it does not normalize. */
  static Identifier hashOf(Identifier id) {
    try {
      return id.hashed();
    } catch (IllegalArgumentException invalid) {
      return null;
    }
  }

  /** Writes parts' rows in input order and records checkpoints. */
  private final class Writer extends Thread {
    private final OutputFiles files;
    private final MapState state;
    private final IdentifierFile file;

    /**
     * About how many lines the run reads, for the progress: estimated by this thread, off the path
     * to the first request (three samples of the file, a few milliseconds while the code is cold).
     */
    private long total = 1;

    private Rows[] done = new Rows[64];
    private int end = -1;
    private MapState.Checkpoint at;
    long mapped;
    long optedOut;
    private long answered;

    /**
     * The source of a new import, which the writer records first; null to resume at {@code start}.
     */
    private final String newSource;

    Writer(
        OutputFiles files,
        MapState state,
        MapState.Checkpoint start,
        String newSource,
        IdentifierFile file) {
      super("veil-map-output");
      setDaemon(true);
      this.files = files;
      this.state = state;
      this.at = start;
      this.newSource = newSource;
      this.file = file;
    }

    synchronized void put(Rows r) {
      while (r.seq() >= done.length) {
        done = java.util.Arrays.copyOf(done, done.length * 2);
      }
      done[r.seq()] = r;
      notifyAll();
    }

    synchronized void finishAt(int parts) {
      end = parts;
      notifyAll();
    }

    synchronized void wake() {
      notifyAll();
    }

    @Override
    public void run() {
      long lastCheckpoint = System.nanoTime();
      long pendingMillis = Long.MAX_VALUE;
      boolean unrecorded = false;
      boolean aligned = true; // the last part written ends a chunk: its line count is exact
      long recordedBytes = at.bytes();
      try {
        total = Math.max(1, file.estimateLines() - at.lines());
        if (newSource != null) {
          state.begin(
              newSource); // durable before the files are started anew: an older record never
          // describes them
          state.checkpoint(files.start());
        } else {
          files.resume(at);
        }
        for (int seq = 0; ; seq++) {
          Rows r = next(seq);
          if (r == null) {
            break;
          }
          files.write(r.rows(), r.length(), r.rejected(), r.rejectedLength());
          spareRows.offer(r.rows()); // dropped when enough are spare
          pendingMillis = Math.min(pendingMillis, r.sentAtMillis());
          long lines = r.linesAfter() >= 0 ? r.linesAfter() : at.lines();
          at =
              new MapState.Checkpoint(
                  lines,
                  files.bytes(),
                  at.rows() + r.count(),
                  files.rejectedBytes(),
                  at.rejectedRows() + r.rejectedCount(),
                  pendingMillis);
          unrecorded = true;
          aligned = r.linesAfter() >= 0;
          mapped += r.count();
          optedOut += r.optedOut();
          answered += r.count() + r.rejectedCount();
          progress.progress(answered, Math.max(total, answered));
          if (r.linesAfter() >= 0
              && (System.nanoTime() - lastCheckpoint >= CHECKPOINT_EVERY_NANOS
                  || files.bytes() - recordedBytes >= CHECKPOINT_EVERY_BYTES)) {
            record();
            recordedBytes = files.bytes();
            pendingMillis = Long.MAX_VALUE;
            unrecorded = false;
            lastCheckpoint = System.nanoTime();
          }
        }
        if (unrecorded && aligned) {
          record(); // after a failure the rows past the last whole chunk stay unrecorded: a resume
          // cuts them
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
    }

    /** Forces both files, then records how far they go. */
    private void record() throws IOException {
      files.force();
      state.checkpoint(at);
    }

    /**
     * Part {@code seq}'s rows once answered; null after the last part, or at a gap after a failure.
     */
    private synchronized Rows next(int seq) throws InterruptedException {
      while ((end < 0 || seq < end) && (seq >= done.length || done[seq] == null)) {
        if (failure.get() != null) {
          return null;
        }
        wait(100);
      }
      if (seq == end) {
        return null;
      }
      Rows r = done[seq];
      done[seq] = null;
      return r;
    }
  }

  static void rethrow(Throwable t) throws IOException {
    if (t == null) {
      return;
    }
    if (t instanceof IOException io) {
      throw io;
    }
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new IllegalStateException(t);
  }
}
