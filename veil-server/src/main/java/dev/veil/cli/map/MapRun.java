package dev.veil.cli.map;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.AddResult;
import dev.veil.sdk.CacheReport;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.VeilApiException;
import dev.veil.sdk.VeilClient;
import dev.veil.sdk.VeilTransportException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One {@code veil map} run: an import ({@link ImportRun}: add the input to the cache, resuming
 * where a previous run stopped, while mapping what has been added and writing the output as it
 * gets mapped), or, with {@code --refresh}, a poll of rotated buckets, the re-mapping, then the
 * output.
 *
 * <p>The cache keeps every step it has forced to disk, so the command can be killed at any point
 * and run again: the input is read on from the line the cache recorded, answers on disk are not
 * asked for again, and the output is rewritten whole.
 */
public final class MapRun {
  /** 0 ok, 1 refused or file error, 2 usage, 3 cannot connect. */
  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;
  static final int UNREACHABLE = 3;
  /** Lines per add: one frame each, built while the store's lock is held; 10,000 keep that short. */
  private static final int CHUNK = 10_000;
  /**
   * Mapping requests on the wire at once: the server always has the next batch waiting while this
   * process reads, stores and writes; 4 rather than 2, because when this process's threads share
   * one core, a sender can be late to pick up an answer (about 5 % off the wall time, measured).
   */
  static final int REQUESTS_IN_FLIGHT = 4;

  /** The command's options. */
  public record Settings(Path in, Path out, Path cache, boolean refresh, String type, String column,
      boolean hashLocally, int batchSize, String progress) {}

  private final PrintWriter err;
  private final Consumer<PrintWriter> usage;
  private final ServerOptions server;
  private final Settings s;

  /**
   * @param err where messages and progress go
   * @param usage prints the command's usage (after a usage error)
   */
  public MapRun(PrintWriter err, Consumer<PrintWriter> usage, ServerOptions server, Settings settings) {
    this.err = err;
    this.usage = usage;
    this.server = server;
    this.s = settings;
  }

  public int run() {
    String problem = usageProblem();
    if (problem != null) {
      err.println("veil map: " + problem);
      usage.accept(err);
      return USAGE;
    }
    Path cachePath = s.cache() != null ? s.cache() : Path.of(s.out() + ".veil-cache");
    ProgressDisplay display = new ProgressDisplay(err, mode(), System::nanoTime);
    VeilClient client;
    try {
      client = VeilClient.builder().baseUrl(server.url()).apiKey(server.apiKey()).hashIdentifiers(s.hashLocally())
          .batchSize(s.batchSize()).build();
    } catch (IllegalArgumentException e) {
      err.println("veil map: " + e.getMessage());
      return USAGE;
    }
    long started = System.nanoTime();
    try (Interruption interruption = Interruption.watch(display, err, cachePath, s.out());
        MappingCache cache = client.mappingCache(cachePath).listener(display).requestsInFlight(REQUESTS_IN_FLIGHT)
            .build()) {
      CacheReport report;
      long rows = -1;
      if (s.refresh()) {
        if (s.in() != null) {
          readInput(cache, display, () -> false);
        }
        display.phase("re-mapping");
        report = cache.refresh();
      } else {
        display.phase("mapping");
        ImportRun.Result result = ImportRun.run(cache, (c, stop) -> readInput(c, display, stop), s.out());
        report = result.report();
        rows = result.rows();
        ArchiveMark.afterImport(report.sent());
      }
      display.progress(report.sent(), report.sent());
      display.finishBar();
      summarize(cache, report, rows, display, started);
      return OK;
    } catch (VeilApiException e) {
      return failed(display, "the server refused: " + e.getMessage(), cachePath, FAILED);
    } catch (VeilTransportException e) {
      return failed(display, "cannot reach " + client.baseUrl() + ": " + e.getMessage(), cachePath, UNREACHABLE);
    } catch (NoSuchFileException e) {
      return failed(display, "no such file: " + e.getFile(), null, FAILED);
    } catch (IOException | UncheckedIOException e) {
      return failed(display, e.getMessage(), null, FAILED);
    } catch (IllegalArgumentException e) {
      display.finishBar();
      err.println("veil map: " + e.getMessage());
      return USAGE;
    }
  }

  private String usageProblem() {
    if (s.in() == null && !s.refresh()) {
      return "give --in FILE (and --out FILE), or --refresh";
    }
    if (s.out() == null && s.cache() == null) {
      return "give --out FILE (the cache is kept beside it) or --cache FILE";
    }
    if (s.type() != null && IdentityInput.fromParameterName(s.type().toLowerCase(Locale.ROOT)) == null) {
      return "--type must be email, email_hash, phone or phone_hash";
    }
    if (s.batchSize() < 1 || s.batchSize() > VeilClient.MAX_BATCH_SIZE) {
      return "--batch-size must be 1 to " + VeilClient.MAX_BATCH_SIZE;
    }
    if (!List.of("auto", "bar", "lines", "none").contains(s.progress())) {
      return "--progress must be auto, bar, lines or none";
    }
    return null;
  }

  private ProgressDisplay.Mode mode() {
    switch (s.progress()) {
      case "bar":
        return ProgressDisplay.Mode.BAR;
      case "lines":
        return ProgressDisplay.Mode.LINES;
      case "none":
        return ProgressDisplay.Mode.NONE;
      default:
        return System.console() != null ? ProgressDisplay.Mode.BAR : ProgressDisplay.Mode.LINES;
    }
  }

  /** Adds the input from where the cache says the last run stopped; {@code stop} aborts between chunks. */
  private void readInput(MappingCache cache, ProgressDisplay display, BooleanSupplier stop) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(s.in(), BasicFileAttributes.class);
    // The checkpoint belongs to this exact file: another path, size or time starts from the top.
    String source = "input:" + s.in().toAbsolutePath().normalize() + ":" + attributes.size() + ":"
        + attributes.lastModifiedTime().toMillis();
    long skip = cache.checkpoint(source).orElse(0);
    IdentityInput kind = s.type() == null ? null : IdentityInput.fromParameterName(s.type().toLowerCase(Locale.ROOT));
    AddResult[] total = {new AddResult(0, 0, 0)};
    long startNanos = System.nanoTime();
    IdentifierFile file = new IdentifierFile(s.in(), kind, s.column());
    long expected = file.estimateLines() - skip;
    boolean[] reserved = {false};
    // The first chunk is the run's first request (MappingCache.FIRST_BATCH_SIZE): it leaves as soon
    // as it is added. Room for the rest is made after it, so that the server does not wait for the
    // tables to be allocated.
    int firstChunk = Math.min(MappingCache.FIRST_BATCH_SIZE, s.batchSize());
    long lines = file.read(skip, firstChunk, CHUNK, (chunk, linesRead) -> {
      if (stop.getAsBoolean()) {
        throw new IOException("stopped reading: mapping failed");
      }
      total[0] = total[0].plus(cache.addBuffered(chunk, source, linesRead)); // forced by the mapping run
      if (!reserved[0]) {
        reserved[0] = true;
        cache.reserve(expected - (linesRead - skip));
      }
    });
    if (skip > 0) {
      display.message("resumed reading " + s.in() + " after line " + Numbers.grouped(skip));
    }
    AddResult added = total[0];
    display.message("read " + Numbers.grouped(lines) + " lines in " + Numbers.tenths((System.nanoTime() - startNanos) / 1e9)
        + " s: " + Numbers.grouped(added.added()) + " new, " + Numbers.grouped(added.alreadyPresent()) + " already held, "
        + Numbers.grouped(added.invalid()) + " invalid");
  }

  /** Reports the run and writes what is left to write: all rows after a refresh ({@code rows} -1), the rejections. */
  private void summarize(MappingCache cache, CacheReport report, long rows, ProgressDisplay display, long started)
      throws IOException {
    if (s.refresh()) {
      display.message(Numbers.grouped(report.rotatedBuckets()) + " rotated bucket(s) since the last poll; "
          + Numbers.grouped(report.markedStale()) + " entries were mapped before their bucket rotated");
    }
    display.message("mapped " + Numbers.grouped(report.mapped()) + " new, re-mapped " + Numbers.grouped(report.remapped())
        + " in " + Numbers.tenths(display.phaseSeconds()) + " s; removed " + Numbers.grouped(report.optedOut())
        + " opted out, " + Numbers.grouped(report.invalid()) + " invalid");
    if (s.out() != null) {
      display.phase("writing");
      long written = rows >= 0 ? rows : MappingFile.writeMappings(cache, s.out());
      Path rejectedFile = MappingFile.rejectedFile(s.out());
      long rejected = MappingFile.writeRejections(cache, rejectedFile);
      display.message("wrote " + Numbers.grouped(written) + " rows to " + s.out()
          + (rejected > 0 ? " and " + Numbers.grouped(rejected) + " rejected identifiers to " + rejectedFile : "")
          + " (" + Numbers.tenths(display.phaseSeconds()) + " s after mapping)");
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    display.message("done in " + Numbers.tenths(seconds) + " s");
  }

  /** Where a run that did not finish left its progress, and how to go on from there. */
  static String progressKept(Path cachePath) {
    return "progress is kept in " + cachePath + "; run the same command again to resume";
  }

  private int failed(ProgressDisplay display, String message, Path cachePath, int code) {
    display.finishBar();
    err.println("veil map: " + message);
    if (cachePath != null) {
      err.println("veil map: " + progressKept(cachePath));
    }
    err.flush();
    return code;
  }
}
