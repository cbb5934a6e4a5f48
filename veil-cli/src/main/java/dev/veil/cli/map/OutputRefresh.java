package dev.veil.cli.map;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.IdentityMapClient;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.internal.ApiCaller;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.MapJson;
import dev.veil.sdk.internal.RotatedBuckets;
import dev.veil.sdk.internal.ValueList;
import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code veil map --refresh}: polls the buckets rotated since the output's rows were mapped,
 * re-maps exactly the rows mapped at or before their bucket's rotation, and writes the output anew
 * (opted-out identifiers leave it for the rejected file). The new files are written whole to the
 * temporary files beside them and forced; then {@link MapState#refreshed} records the poll's time
 * and the new row counts, the commit; then the files are renamed into place and {@link
 * MapState#markInstalled} records that. A run that stops before the commit leaves the output as it
 * was (the next refresh removes the temporary files and does the same again); one that stops after
 * it has its renames finished by the next run ({@link OutputFiles#settle}). Either way no row is
 * lost and no rejected identifier is reported twice.
 */
final class OutputRefresh {
  /**
   * What the refresh did. {@code rotatedBuckets} counts the buckets rotated at or after the oldest
   * row was mapped, not the whole poll (which reaches back a margin further).
   */
  record Result(
      long rotatedBuckets,
      long stale,
      long remapped,
      long optedOut,
      long invalid,
      long rows,
      long rejectedRows) {}

  private final ApiCaller caller;
  private final IdentityMapClient mapper;
  private final boolean hashLocally;
  private final int batchSize;
  private final int batchBytes;
  private final OutputImport.Progress progress;
  private final Steps steps;
  private final int keptBytes;

  /** The points of a refresh's write, in order, where a test stops it as a crash would. */
  enum Step {
    /** Both temporary files are written and forced; nothing is recorded yet. */
    WRITTEN,
    /** The {@code REFRESHED} record is forced; no file is renamed yet. */
    COMMITTED,
    /** The files are renamed into place; the {@code INSTALLED} record is not written yet. */
    RENAMED
  }

  /** Told each {@link Step} as it is reached. */
  interface Steps {
    Steps NONE = step -> {};

    void reached(Step step) throws IOException;
  }

  OutputRefresh(
      ApiCaller caller,
      IdentityMapClient mapper,
      boolean hashLocally,
      int batchSize,
      int batchBytes,
      OutputImport.Progress progress) {
    this(caller, mapper, hashLocally, batchSize, batchBytes, progress, Steps.NONE, KEPT_BYTES);
  }

  /**
   * @param steps told each point of the write as it is reached (tests stop the refresh there)
   * @param keptBytes bytes of rows that stay after which a chunk is sent ({@link #KEPT_BYTES})
   */
  OutputRefresh(
      ApiCaller caller,
      IdentityMapClient mapper,
      boolean hashLocally,
      int batchSize,
      int batchBytes,
      OutputImport.Progress progress,
      Steps steps,
      int keptBytes) {
    this.steps = steps;
    this.keptBytes = keptBytes;
    this.caller = caller;
    this.mapper = mapper;
    this.hashLocally = hashLocally;
    this.batchSize = batchSize;
    this.batchBytes = batchBytes;
    this.progress = progress;
  }

  /**
   * @param fixedKind the kind of every identifier of the input (null: each value's shape decides,
   *     as when it was read)
   * @throws IOException if the output is missing or unfinished, or a file cannot be read or written
   */
  Result run(MapState state, OutputFiles files, IdentityInput fixedKind) throws IOException {
    Path out = files.out();
    files.settle(state);
    if (state.input() == null || !state.done() || !Files.isRegularFile(out)) {
      throw new IOException(
          "nothing to refresh in "
              + out
              + (state.input() != null && !state.done()
                  ? ": its import is not finished; run the same veil map --in command again first"
                  : ": map a file into it first (veil map --in FILE --out " + out + ")"));
    }
    files.discardTemporaryFiles(); // a refresh that stopped before its commit: never to be renamed
    long pollMillis = System.currentTimeMillis();
    long oldestMapped = Math.min(state.oldestMappedAtMillis(), pollMillis);
    // The poll reaches back POLL_OVERLAP before the oldest row, so that a node whose clock is
    // behind
    // this machine's cannot hide a rotation; what it lists in that margin (on a new store, every
    // bucket, dated at the store's creation) is looked up but not counted as rotated since mapping.
    long since = oldestMapped - MappingCache.POLL_OVERLAP.toMillis();
    RotatedBuckets rotated = new RotatedBuckets();
    // Streamed in, with no list of them all; a retried poll hands them over again: the latest time
    // stays.
    mapper.rotatedBuckets(
        Instant.ofEpochMilli(since),
        b -> rotated.merge(b.bucketId(), b.lastUpdated().toEpochMilli()));
    Tally t = anyStale(state, files, rotated) ? rewrite(state, files, rotated, fixedKind) : null;
    if (t == null) {
      files.discardTemporaryFiles(); // the files stay as they are
      state.refreshed(pollMillis, state.last().rows(), state.last().rejectedRows());
      state.markInstalled();
      return new Result(
          rotated.countAtOrAfter(oldestMapped),
          0,
          0,
          0,
          0,
          state.last().rows(),
          state.last().rejectedRows());
    }
    steps.reached(Step.WRITTEN);
    state.refreshed(pollMillis, t.rows, t.rejected);
    steps.reached(Step.COMMITTED);
    files.finishRenames(t.rejected);
    steps.reached(Step.RENAMED);
    state.markInstalled();
    return new Result(
        rotated.countAtOrAfter(oldestMapped),
        t.stale,
        t.remapped,
        t.optedOut,
        t.invalid,
        t.rows,
        t.rejected);
  }

  /**
   * A row's fields: the identifier unquoted, the advertising id, the bucket, and the identifier's
   * field as written.
   */
  static String[] split(String line) {
    int bucketComma = line.lastIndexOf(',');
    int idComma = line.lastIndexOf(',', bucketComma - 1);
    if (idComma < 0) {
      throw new IllegalArgumentException(
          "not a row of veil map's output: "
              + line.length()
              + " characters, "
              + "fewer than three fields");
    }
    String field = line.substring(0, idComma);
    String identifier = field.startsWith("\"") ? Csv.fields(field).get(0) : field;
    return new String[] {
      identifier, line.substring(idComma + 1, bucketComma), line.substring(bucketComma + 1), field
    };
  }

  /**
   * Whether a row of the output was mapped at or before its bucket's rotation: read up to the first
   * such row, so that a refresh with nothing to re-map writes nothing (and one that has rows to
   * re-map near the top reads little twice).
   */
  private static boolean anyStale(MapState state, OutputFiles files, RotatedBuckets rotated)
      throws IOException {
    if (rotated.size() == 0) {
      return false;
    }
    try (LineReader in =
        new LineReader(Files.newInputStream(files.out()), files.out().toString())) {
      in.nextLine(); // the header
      for (long row = 0; in.nextLine(); row++) {
        if (isStale(in, row, state, rotated, files.out())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether the current row of {@code in}, row {@code row}, was mapped at or before its bucket's
   * rotation.
   *
   * @throws IOException if the output has more rows than the state records (it was changed since)
   */
  private static boolean isStale(
      LineReader in, long row, MapState state, RotatedBuckets rotated, Path out)
      throws IOException {
    if (row >= state.last().rows()) {
      throw changed(
          out,
          "it has more rows than the " + Numbers.grouped(state.last().rows()) + " veil map wrote");
    }
    byte[] b = in.bytes();
    int bucket = in.end();
    while (bucket > in.start() && b[bucket - 1] != ',') {
      bucket--;
    }
    long rotatedAt = rotated.rotatedAtMillis(b, bucket, in.end());
    return rotatedAt != RotatedBuckets.ABSENT && state.mappedAtMillis(row) <= rotatedAt;
  }

  /**
   * The refusal of an output that is not as veil map wrote it (edited, or another file put in its
   * place): its rows and the state's record of them no longer agree, so which rows to re-map cannot
   * be told. Nothing is written; an import of the input makes the output anew.
   */
  private static IOException changed(Path out, String what) {
    return new IOException(
        out
            + " was changed since veil map wrote it ("
            + what
            + "), so the rows to re-map "
            + "cannot be told; remove it and map the input into it again (veil map --in FILE --out "
            + out
            + ")");
  }

  /**
   * Rows of the output read since the previous chunk, in order: the rows that stay, as read (bytes
   * one after another, each with its line end), and the stale rows, sent again in one request whose
   * answers are written in their places. A chunk ends when its request is full (or the next stale
   * row is of another kind) or its kept rows reach {@link #KEPT_BYTES}, so a refresh holds a few
   * chunks at a time whatever the size of the output.
   */
  private static final class Chunk {
    /** The rows that stay, as read; the stale rows' places are in {@link #stale}. */
    final CsvBuffer kept = new CsvBuffer(1 << 16);

    int keptRows;

    /** The stale rows, in order. */
    final List<StaleRow> stale = new ArrayList<>();

    IdentityInput kind;
    ValueList sent;
    Future<MapAnswer> answer;

    boolean isEmpty() {
      return keptRows == 0 && stale.isEmpty();
    }

    /** Whether its rows can be written without waiting: nothing was sent, or the answer is in. */
    boolean answered() {
      return answer == null || answer.isDone();
    }
  }

  /**
   * A stale row: where it goes among the kept rows' bytes, its place in the request (-1: not sent,
   * invalid), and its identifier as written in the output (a CSV field).
   */
  private record StaleRow(int at, int sentAt, String field) {}

  /** Bytes of kept rows after which a chunk is sent even though its request is not full. */
  static final int KEPT_BYTES = 1 << 20;

  /** What a pass over the output found and wrote. */
  private static final class Tally {
    long stale;
    long remapped;
    long optedOut;
    long invalid;
    long rows;
    long read;
    long rejected;
  }

  /**
   * Reads the output once and writes it anew to its temporary file (forced): the rows mapped at or
   * before their bucket's last rotation are sent again, {@value OutputImport#IN_FLIGHT} requests at
   * a time, and replaced by their answers; rows now refused go to the rejected file's temporary
   * file (its rows so far, then these), opened at the first of them.
   */
  private Tally rewrite(
      MapState state, OutputFiles files, RotatedBuckets rotated, IdentityInput fixedKind)
      throws IOException {
    Tally t = new Tally();
    long total = Math.max(1, state.last().rows());
    ExecutorService senders =
        Executors.newFixedThreadPool(
            OutputImport.IN_FLIGHT,
            r -> {
              Thread thread = new Thread(r, "veil-map-send");
              thread.setDaemon(true);
              return thread;
            });
    Rejections rejections = new Rejections(files, state.last().rejectedRows());
    try (LineReader in = new LineReader(Files.newInputStream(files.out()), files.out().toString());
        FileChannel channel =
            FileChannel.open(
                files.temporaryOut(),
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        OutputStream w = new BufferedOutputStream(stream(channel, files.temporaryOut()), 1 << 16);
        rejections) {
      String header = in.readLine();
      w.write(
          ((header == null ? OutputFiles.HEADER.strip() : header) + "\n")
              .getBytes(StandardCharsets.UTF_8));
      Deque<Chunk> pending = new ArrayDeque<>();
      Chunk c = new Chunk();
      for (long row = 0; in.nextLine(); row++) {
        if (!isStale(in, row, state, rotated, files.out())) {
          c.kept.raw(in.bytes(), in.start(), in.end() - in.start());
          c.kept.newline();
          c.keptRows++;
          if (c.kept.length() >= keptBytes) {
            c = send(c, pending, senders, w, rejections, t, total);
          }
          continue;
        }
        t.stale++;
        String[] f;
        try {
          f = split(in.line());
        } catch (IllegalArgumentException e) {
          throw changed(
              files.out(),
              "line " + Numbers.grouped(in.lineNumber()) + " is not a row of veil map's output");
        }
        Identifier id = toSend(f[0], fixedKind);
        int sentAt = -1;
        if (id != null) {
          byte[] value = id.value().getBytes(StandardCharsets.UTF_8);
          if (c.sent != null
              && (id.kind() != c.kind
                  || c.sent.size() >= batchSize
                  || MapJson.ENVELOPE_BYTES
                          + c.sent.jsonBytesBound()
                          + ValueList.jsonBytesBound(value, 0, value.length)
                      > batchBytes)) {
            c = send(c, pending, senders, w, rejections, t, total);
          }
          if (c.sent == null) {
            c.kind = id.kind();
            c.sent = new ValueList(batchSize, batchSize * 48);
          }
          sentAt = c.sent.size();
          c.sent.add(value, 0, value.length);
        }
        c.stale.add(new StaleRow(c.kept.length(), sentAt, f[3]));
      }
      send(c, pending, senders, w, rejections, t, total);
      while (!pending.isEmpty()) {
        write(pending.poll(), w, rejections, t, total);
      }
      w.flush();
      try {
        channel.force(true);
      } catch (IOException e) {
        throw OutputFiles.failed(files.temporaryOut(), e);
      }
      rejections.finish();
      t.rejected = rejections.rows;
    } finally {
      senders.shutdownNow();
    }
    return t;
  }

  /**
   * Sends chunk {@code c}'s request (if it has stale rows to send) and queues it; writes the oldest
   * queued chunks while more than {@value OutputImport#IN_FLIGHT} wait. Returns the next chunk.
   */
  private Chunk send(
      Chunk c,
      Deque<Chunk> pending,
      ExecutorService senders,
      OutputStream w,
      Rejections rejections,
      Tally t,
      long total)
      throws IOException {
    if (c.isEmpty()) {
      return c;
    }
    if (c.sent != null) {
      IdentityInput kind = c.kind;
      ValueList sent = c.sent;
      c.answer = senders.submit(() -> MapJson.call(caller, kind, sent));
    }
    pending.add(c);
    // The oldest chunks go out as soon as they can (rows held longer are promoted to the old
    // generation, which then grows with them), and at the latest when more requests would be
    // waiting.
    while (!pending.isEmpty()
        && (pending.size() > OutputImport.IN_FLIGHT || pending.peek().answered())) {
      write(pending.poll(), w, rejections, t, total);
    }
    return new Chunk();
  }

  /**
   * Writes chunk {@code c}'s rows once its answer is in: kept rows as read, stale ones as answered.
   */
  private void write(Chunk c, OutputStream w, Rejections rejections, Tally t, long total)
      throws IOException {
    MapAnswer answer = c.answer == null ? null : await(c.answer);
    byte[] kept = c.kept.bytes();
    int from = 0;
    for (StaleRow s : c.stale) {
      w.write(kept, from, s.at() - from);
      from = s.at();
      if (s.sentAt() >= 0 && answer.isMapped(s.sentAt())) {
        String row =
            s.field()
                + ','
                + Csv.field(answer.advertisingId(s.sentAt()))
                + ','
                + Csv.field(answer.bucketId(s.sentAt()))
                + '\n';
        w.write(row.getBytes(StandardCharsets.UTF_8));
        t.remapped++;
        t.rows++;
      } else {
        String reason =
            s.sentAt() < 0
                ? MapOutcome.Reason.INVALID_IDENTIFIER.wireName()
                : answer.reason(s.sentAt());
        rejections.add(s.field(), reason);
        if (MapOutcome.Reason.OPTED_OUT.wireName().equals(reason)) {
          t.optedOut++;
        } else {
          t.invalid++;
        }
      }
    }
    w.write(kept, from, c.kept.length() - from);
    t.rows += c.keptRows;
    t.read += c.keptRows + c.stale.size();
    progress.progress(t.read, Math.max(total, t.read));
  }

  /**
   * The rejected file written anew to its temporary file: opened at the first rejection with the
   * rows the file already has, then the new ones; forced by {@link #finish}. Nothing is written
   * when there is no rejection (the file stays as it is).
   */
  private static final class Rejections implements AutoCloseable {
    private final OutputFiles files;
    long rows;
    private FileChannel channel;
    private BufferedWriter out;

    Rejections(OutputFiles files, long rows) {
      this.files = files;
      this.rows = rows;
    }

    void add(String field, String reason) throws IOException {
      if (out == null) {
        open();
      }
      out.write(field);
      out.write(',');
      out.write(reason);
      out.write('\n');
      rows++;
    }

    private void open() throws IOException {
      channel =
          FileChannel.open(
              files.temporaryRejected(),
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING);
      OutputStream os = stream(channel, files.temporaryRejected());
      if (Files.isRegularFile(files.rejected())) {
        try (InputStream old = Files.newInputStream(files.rejected())) {
          old.transferTo(os);
        }
      } else {
        os.write(OutputFiles.REJECTED_HEADER.getBytes(StandardCharsets.US_ASCII));
      }
      out = new BufferedWriter(new OutputStreamWriter(os, StandardCharsets.UTF_8), 1 << 16);
    }

    void finish() throws IOException {
      if (out != null) {
        out.flush();
        try {
          channel.force(true);
        } catch (IOException e) {
          throw OutputFiles.failed(files.temporaryRejected(), e);
        }
      }
    }

    @Override
    public void close() throws IOException {
      if (channel != null) {
        channel.close();
      }
    }
  }

  /** What is sent for {@code value}: the identifier, or its hash; null if it does not normalize. */
  private Identifier toSend(String value, IdentityInput fixedKind) {
    Identifier id =
        Identifier.of(fixedKind != null ? fixedKind : IdentifierFile.guess(value), value);
    if (!id.isValid()) {
      return null;
    }
    return hashLocally ? OutputImport.hashOf(id) : id;
  }

  private static MapAnswer await(Future<MapAnswer> future) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while re-mapping", e);
    } catch (ExecutionException e) {
      OutputImport.rethrow(e.getCause());
      throw new IllegalStateException(e.getCause());
    }
  }

  /** An unbuffered stream onto {@code channel} that does not close it. */
  private static OutputStream stream(FileChannel channel, Path file) {
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(b, off, len);
        try {
          while (buffer.hasRemaining()) {
            channel.write(buffer);
          }
        } catch (IOException e) {
          throw OutputFiles.failed(file, e); // a full disk is named by its file
        }
      }
    };
  }
}
