package dev.veil.cli.map;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.IdentityMapClient;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.RotatedBucket;
import dev.veil.sdk.internal.ApiCaller;
import dev.veil.sdk.internal.MapAnswer;
import dev.veil.sdk.internal.MapJson;
import dev.veil.sdk.internal.ValueList;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;

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
  /** What the refresh did. */
  record Result(long rotatedBuckets, long stale, long remapped, long optedOut, long invalid, long rows,
      long rejectedRows) {}

  private final ApiCaller caller;
  private final IdentityMapClient mapper;
  private final boolean hashLocally;
  private final int batchSize;
  private final int batchBytes;
  private final OutputImport.Progress progress;
  private final Steps steps;

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
    Steps NONE = step -> { };

    void reached(Step step) throws IOException;
  }

  OutputRefresh(ApiCaller caller, IdentityMapClient mapper, boolean hashLocally, int batchSize, int batchBytes,
      OutputImport.Progress progress) {
    this(caller, mapper, hashLocally, batchSize, batchBytes, progress, Steps.NONE);
  }

  OutputRefresh(ApiCaller caller, IdentityMapClient mapper, boolean hashLocally, int batchSize, int batchBytes,
      OutputImport.Progress progress, Steps steps) {
    this.steps = steps;
    this.caller = caller;
    this.mapper = mapper;
    this.hashLocally = hashLocally;
    this.batchSize = batchSize;
    this.batchBytes = batchBytes;
    this.progress = progress;
  }

  /** A row to map again: its place in the output, its identifier as written there (a CSV field), its value. */
  private record Stale(long row, String field, String value) {}

  /**
   * @param fixedKind the kind of every identifier of the input (null: each value's shape decides,
   *     as when it was read)
   * @throws IOException if the output is missing or unfinished, or a file cannot be read or written
   */
  Result run(MapState state, OutputFiles files, IdentityInput fixedKind) throws IOException {
    Path out = files.out();
    files.settle(state);
    if (state.input() == null || !state.done() || !Files.isRegularFile(out)) {
      throw new IOException("nothing to refresh in " + out + (state.input() != null && !state.done()
          ? ": its import is not finished; run the same veil map --in command again first"
          : ": map a file into it first (veil map --in FILE --out " + out + ")"));
    }
    files.discardTemporaryFiles(); // a refresh that stopped before its commit: never to be renamed
    long pollMillis = System.currentTimeMillis();
    long since = Math.min(state.oldestMappedAtMillis(), pollMillis) - MappingCache.POLL_OVERLAP.toMillis();
    Map<String, Long> rotated = new HashMap<>();
    for (RotatedBucket b : mapper.rotatedBuckets(Instant.ofEpochMilli(since))) {
      rotated.merge(b.bucketId(), b.lastUpdated().toEpochMilli(), Math::max);
    }
    List<Stale> stale = staleRows(out, state, rotated);
    if (stale.isEmpty()) {
      state.refreshed(pollMillis, state.last().rows(), state.last().rejectedRows()); // the files stay as they are
      state.markInstalled();
      return new Result(rotated.size(), 0, 0, 0, 0, state.last().rows(), state.last().rejectedRows());
    }
    Object[] answers = remap(stale, fixedKind); // per stale row: String[] {advertising id, bucket} or a reason
    long[] counts = new long[3]; // re-mapped, opted out, invalid
    List<String> rejections = new ArrayList<>();
    long rows = rewrite(out, files.temporaryOut(), stale, answers, counts, rejections);
    long rejectedRows = writeRejections(files.rejected(), files.temporaryRejected(), rejections,
        state.last().rejectedRows());
    steps.reached(Step.WRITTEN);
    state.refreshed(pollMillis, rows, rejectedRows);
    steps.reached(Step.COMMITTED);
    files.finishRenames(rejectedRows);
    steps.reached(Step.RENAMED);
    state.markInstalled();
    return new Result(rotated.size(), stale.size(), counts[0], counts[1], counts[2], rows, rejectedRows);
  }

  /** The rows mapped at or before their bucket's last rotation, in output order. */
  private static List<Stale> staleRows(Path out, MapState state, Map<String, Long> rotated) throws IOException {
    List<Stale> stale = new ArrayList<>();
    if (rotated.isEmpty()) {
      return stale;
    }
    forEachRow(out, (row, fields) -> {
      Long rotatedAt = rotated.get(fields[2]);
      if (rotatedAt != null && state.mappedAtMillis(row) <= rotatedAt) {
        stale.add(new Stale(row, fields[3], fields[0]));
      }
    });
    return stale;
  }

  /**
   * Calls {@code action} with each row's number and fields {identifier, advertising id, bucket,
   * the identifier as written (quoted if it was)}.
   */
  private static void forEachRow(Path out, BiConsumer<Long, String[]> action) throws IOException {
    try (BufferedReader in = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
      String header = in.readLine();
      if (header == null) {
        return;
      }
      long row = 0;
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        action.accept(row++, split(line));
      }
    }
  }

  /** A row's fields: the identifier unquoted, the advertising id, the bucket, and the identifier's field as written. */
  static String[] split(String line) {
    int bucketComma = line.lastIndexOf(',');
    int idComma = line.lastIndexOf(',', bucketComma - 1);
    if (idComma < 0) {
      throw new IllegalArgumentException("not a row of veil map's output: " + line.length() + " characters, "
          + "fewer than three fields");
    }
    String field = line.substring(0, idComma);
    String identifier = field.startsWith("\"") ? Csv.fields(field).get(0) : field;
    return new String[] {identifier, line.substring(idComma + 1, bucketComma), line.substring(bucketComma + 1), field};
  }

  /** Sends the stale rows again (four requests at a time); one answer per row. */
  private Object[] remap(List<Stale> stale, IdentityInput fixedKind) throws IOException {
    int n = stale.size();
    Object[] answers = new Object[n];
    Identifier[] toSend = new Identifier[n];
    for (int i = 0; i < n; i++) {
      toSend[i] = toSend(stale.get(i).value(), fixedKind);
      if (toSend[i] == null) {
        answers[i] = MapOutcome.Reason.INVALID_IDENTIFIER.wireName();
      }
    }
    List<List<Integer>> batches = new ArrayList<>();
    List<Future<MapAnswer>> pending = new ArrayList<>();
    ExecutorService senders = Executors.newFixedThreadPool(OutputImport.IN_FLIGHT, r -> {
      Thread t = new Thread(r, "veil-map-send");
      t.setDaemon(true);
      return t;
    });
    try {
      int i = 0;
      while (i < n) {
        if (toSend[i] == null) {
          i++;
          continue;
        }
        IdentityInput kind = toSend[i].kind();
        ValueList sent = new ValueList(batchSize, batchSize * 48);
        List<Integer> rows = new ArrayList<>();
        for (; i < n && sent.size() < batchSize; i++) {
          if (toSend[i] == null) {
            continue;
          }
          byte[] value = toSend[i].value().getBytes(StandardCharsets.UTF_8);
          if (toSend[i].kind() != kind || (sent.size() > 0
              && MapJson.ENVELOPE_BYTES + sent.jsonBytesBound() + ValueList.jsonBytesBound(value, 0, value.length) > batchBytes)) {
            break;
          }
          sent.add(value, 0, value.length);
          rows.add(i);
        }
        batches.add(rows);
        pending.add(senders.submit(() -> caller.call("/v1/identity/map", MapJson.request(kind, sent),
            MapJson.answerReader(sent))));
      }
      long done = 0;
      for (int b = 0; b < pending.size(); b++) {
        MapAnswer answer = await(pending.get(b));
        List<Integer> rows = batches.get(b);
        for (int j = 0; j < rows.size(); j++) {
          answers[rows.get(j)] = answer.isMapped(j) ? new String[] {answer.advertisingId(j), answer.bucketId(j)}
              : answer.reason(j);
        }
        done += rows.size();
        progress.progress(done, n);
      }
      return answers;
    } finally {
      senders.shutdownNow();
    }
  }

  /** What is sent for {@code value}: the identifier, or its hash; null if it does not normalize. */
  private Identifier toSend(String value, IdentityInput fixedKind) {
    Identifier id = Identifier.of(fixedKind != null ? fixedKind : IdentifierFile.guess(value), value);
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

  /** Writes the output anew to {@code tmp}, forced; returns its rows. Rows whose identifier is now refused go to {@code rejections}. */
  private static long rewrite(Path out, Path tmp, List<Stale> stale, Object[] answers, long[] counts,
      List<String> rejections) throws IOException {
    long rows = 0;
    try (BufferedReader in = Files.newBufferedReader(out, StandardCharsets.UTF_8);
        FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        BufferedWriter w = new BufferedWriter(new java.io.OutputStreamWriter(stream(channel), StandardCharsets.UTF_8),
            1 << 16)) {
      String header = in.readLine();
      w.write(header == null ? OutputFiles.HEADER.strip() : header);
      w.write('\n');
      int next = 0;
      long row = 0;
      for (String line = in.readLine(); line != null; line = in.readLine(), row++) {
        if (next < stale.size() && stale.get(next).row() == row) {
          Object answer = answers[next];
          String field = stale.get(next++).field();
          if (answer instanceof String[] mapped) {
            w.write(field);
            w.write(',');
            w.write(Csv.field(mapped[0]));
            w.write(',');
            w.write(Csv.field(mapped[1]));
            w.write('\n');
            counts[0]++;
            rows++;
          } else {
            String reason = (String) answer;
            rejections.add(field + "," + reason);
            counts[MapOutcome.Reason.OPTED_OUT.wireName().equals(reason) ? 1 : 2]++;
          }
          continue;
        }
        w.write(line);
        w.write('\n');
        rows++;
      }
      w.flush();
      channel.force(true);
    }
    return rows;
  }

  /**
   * Writes the rejected file anew to {@code tmp} (forced): its rows, then the rejections; returns
   * the rows it holds. Writes nothing when there are no rejections (the file stays as it is).
   */
  private static long writeRejections(Path rejected, Path tmp, List<String> rejections, long before)
      throws IOException {
    if (rejections.isEmpty()) {
      return before;
    }
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      OutputStream os = stream(channel);
      if (Files.isRegularFile(rejected)) {
        try (InputStream old = Files.newInputStream(rejected)) {
          old.transferTo(os);
        }
      } else {
        os.write(OutputFiles.REJECTED_HEADER.getBytes(StandardCharsets.US_ASCII));
      }
      StringBuilder text = new StringBuilder();
      for (String r : rejections) {
        text.append(r).append('\n');
      }
      os.write(text.toString().getBytes(StandardCharsets.UTF_8));
      channel.force(true);
    }
    return before + rejections.size();
  }

  /** An unbuffered stream onto {@code channel} that does not close it. */
  private static OutputStream stream(FileChannel channel) {
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(b, off, len);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      }
    };
  }
}
