package dev.veil.cli.map;

import dev.veil.common.FileProblems;
import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.RetryPolicy;
import dev.veil.sdk.VeilApiException;
import dev.veil.sdk.VeilClient;
import dev.veil.sdk.VeilTransportException;
import dev.veil.sdk.internal.ApiCaller;
import dev.veil.sdk.internal.Endpoint;
import dev.veil.sdk.internal.Jitter;
import dev.veil.sdk.internal.Sleeper;
import dev.veil.sdk.internal.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One {@code veil map} run: an import ({@link OutputImport}: the input read, mapped and written as
 * rows in input order, resuming where a previous run of the same input stopped), then, with {@code
 * --refresh}, a refresh ({@link OutputRefresh}: the rows whose bucket rotated after they were
 * mapped are mapped again and the output rewritten). {@code --refresh} alone refreshes the output
 * of an earlier import.
 *
 * <p>The output is its own store: {@code <out>.veil-state} ({@code --cache} names another place)
 * records which input it belongs to and how much of it is on disk, so the command can be killed at
 * any point and run again.
 */
public final class MapRun {
  /** 0 ok, 1 refused or file error, 2 usage, 3 cannot connect. */
  static final int OK = 0;

  static final int FAILED = 1;
  static final int USAGE = 2;
  static final int UNREACHABLE = 3;

  /** The command's options. */
  public record Settings(
      Path in,
      Path out,
      Path cache,
      boolean refresh,
      String type,
      String column,
      boolean hashLocally,
      int batchSize,
      String progress) {}

  private final PrintWriter err;
  private final Consumer<PrintWriter> usage;
  private final ServerOptions server;
  private final Settings s;

  /**
   * @param err where messages and progress go
   * @param usage prints the command's usage (after a usage error)
   */
  public MapRun(
      PrintWriter err, Consumer<PrintWriter> usage, ServerOptions server, Settings settings) {
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
    Path statePath = s.cache() != null ? s.cache() : OutputLock.file(s.out());
    ProgressDisplay display = new ProgressDisplay(err, mode());
    String baseUrl;
    try {
      // Checked as a VeilClient checks them; the client itself is only built for a refresh's bucket
      // poll: building it (a second transport, its checks) cost an import about 3 ms before its
      // first request.
      baseUrl = Endpoint.baseUrl(server.url());
      Endpoint.apiKey(server.apiKey());
    } catch (IllegalArgumentException e) {
      err.println("veil map: " + ServerOptions.inOptionTerms(e));
      return USAGE;
    }
    if (server.apiKey() == null) {
      // Said before any file is made: the server's 401 would name an HTTP header, not the option.
      err.println("veil map: " + ServerOptions.missingKey("MAPPER"));
      return USAGE;
    }
    String clash = clash(statePath);
    if (clash != null) {
      err.println("veil map: " + clash);
      return USAGE;
    }
    String fileProblem = fileProblem(statePath);
    if (fileProblem != null) {
      err.println("veil map: " + fileProblem);
      return FAILED;
    }
    ApiCaller caller = caller(baseUrl, server.apiKey());
    long started = System.nanoTime();
    try (Interruption interruption = Interruption.watch(display, err, statePath);
        OutputLock outputLock = OutputLock.take(s.out(), statePath);
        MapState state = MapState.open(statePath);
        OutputFiles files = new OutputFiles(s.out())) {
      IdentityInput kind =
          s.type() == null
              ? null
              : IdentityInput.fromParameterName(s.type().toLowerCase(Locale.ROOT));
      if (s.in() != null) {
        IdentifierFile file = new IdentifierFile(s.in(), kind, s.column());
        String source = source(file);
        display.phase("mapping");
        long readStart = System.nanoTime();
        OutputImport.Result r =
            new OutputImport(
                    caller, s.hashLocally(), s.batchSize(), VeilClient.MAX_BATCH_BYTES, display)
                .run(file, source, state, files);
        reportImport(r, display, readStart, files, file.linesWithoutValue());
      }
      if (s.refresh()) {
        display.phase("re-mapping");
        IdentityInput fixedKind = fixedKind(state.input());
        // Identifiers hashed here when they were imported are hashed here again, whatever this
        // command says.
        boolean hashLocally =
            s.hashLocally() || Boolean.parseBoolean(setting(state.input(), "hash-locally"));
        VeilClient client =
            VeilClient.builder()
                .baseUrl(baseUrl)
                .apiKey(server.apiKey())
                .retryPolicy(RETRIES)
                .build();
        OutputRefresh.Result r =
            new OutputRefresh(
                    caller,
                    client.mapper(),
                    hashLocally,
                    s.batchSize(),
                    VeilClient.MAX_BATCH_BYTES,
                    display)
                .run(state, files, fixedKind);
        display.finishBar();
        display.message(
            Numbers.grouped(r.rotatedBuckets())
                + " bucket(s) rotated since the oldest row was mapped; "
                + Numbers.grouped(r.stale())
                + " entries were mapped before their bucket rotated");
        display.message(
            "mapped 0 new, re-mapped "
                + Numbers.grouped(r.remapped())
                + " in "
                + Numbers.tenths(display.phaseSeconds())
                + " s; removed "
                + Numbers.grouped(r.optedOut())
                + " opted out, "
                + Numbers.grouped(r.invalid())
                + " invalid");
        display.message(wrote(r.rows(), r.rejectedRows(), files));
      }
      display.message("done in " + Numbers.tenths((System.nanoTime() - started) / 1e9) + " s");
      return OK;
    } catch (VeilApiException e) {
      return failed(display, "the server refused: " + e.getMessage(), statePath, FAILED);
    } catch (VeilTransportException e) {
      return failed(
          display, "cannot reach " + baseUrl + ": " + e.getMessage(), statePath, UNREACHABLE);
    } catch (FileSystemException e) {
      // A file the run writes (a full disk): what is on disk stands, and the same command goes on
      // from it.
      boolean written =
          e.getFile() != null
              && (OutputFiles.isWrittenFile(s.out(), Path.of(e.getFile()))
                  || sameFile(statePath, Path.of(e.getFile())));
      return failed(display, FileProblems.describe(e), written ? statePath : null, FAILED);
    } catch (IOException | UncheckedIOException e) {
      return failed(display, e.getMessage(), null, FAILED);
    } catch (IllegalArgumentException e) {
      display.finishBar();
      err.println("veil map: " + e.getMessage());
      return USAGE;
    } catch (OutOfMemoryError e) {
      // Everything recorded so far stands (the files are as crash-safe as after a kill); say how to
      // give the JVM more, instead of its stack trace.
      long maxMb = Runtime.getRuntime().maxMemory() >> 20;
      return failed(
          display,
          "out of memory (the JVM's heap is at most "
              + Numbers.grouped(maxMb)
              + " MB); run it again with a larger one, e.g. VEIL_JAVA_OPTS=-Xmx"
              + Math.max(1, (4 * maxMb) >> 10)
              + "g",
          statePath,
          FAILED);
    }
  }

  private void reportImport(
      OutputImport.Result r,
      ProgressDisplay display,
      long readStart,
      OutputFiles files,
      long withoutValue) {
    if (r.alreadyDone()) {
      display.message(
          s.out()
              + " is complete for "
              + s.in()
              + " ("
              + Numbers.grouped(r.rows())
              + " rows): nothing to map; --refresh re-maps the rows whose bucket rotated");
      return;
    }
    display.progress(r.read(), r.read()); // every identifier read is answered or rejected by now
    display.finishBar();
    if (r.skippedLines() > 0) {
      display.message(
          "resumed reading " + s.in() + " after line " + Numbers.grouped(r.skippedLines()));
    }
    display.message(
        "read "
            + Numbers.grouped(r.lines() - r.skippedLines())
            + " lines in "
            + Numbers.tenths((System.nanoTime() - readStart) / 1e9)
            + " s: "
            + Numbers.grouped(r.read())
            + " identifiers, "
            + Numbers.grouped(r.invalid())
            + " invalid"
            + (withoutValue > 0
                ? ", " + Numbers.grouped(withoutValue) + " without a value in the column (skipped)"
                : ""));
    display.message(
        "mapped "
            + Numbers.grouped(r.mapped())
            + " new in "
            + Numbers.tenths(display.phaseSeconds())
            + " s; removed "
            + Numbers.grouped(r.optedOut())
            + " opted out, "
            + Numbers.grouped(r.invalid())
            + " invalid");
    display.message(wrote(r.rows(), r.rejectedRows(), files));
    ArchiveMark.afterImport(r.sent());
  }

  private static String wrote(long rows, long rejected, OutputFiles files) {
    return "wrote "
        + Numbers.grouped(rows)
        + " rows to "
        + files.out()
        + (rejected > 0
            ? " and " + Numbers.grouped(rejected) + " rejected identifiers to " + files.rejected()
            : "");
  }

  /**
   * What the output belongs to: the input file (path, size, time) and what decides how it is read
   * (a changed file or option starts the import anew), and the kind every value is read as.
   */
  private String source(IdentifierFile file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(s.in(), BasicFileAttributes.class);
    IdentityInput fixed = file.fixedKind();
    return "input="
        + s.in().toAbsolutePath().normalize()
        + "\nsize="
        + attributes.size()
        + "\nmodified="
        + attributes.lastModifiedTime().toMillis()
        + "\ntype="
        + (s.type() == null ? "" : s.type())
        + "\ncolumn="
        + (s.column() == null ? "" : s.column())
        + "\nhash-locally="
        + s.hashLocally()
        + "\nkind="
        + (fixed == null ? "" : fixed.parameterName());
  }

  /** One setting of a recorded source, or "" when absent. */
  private static String setting(String source, String name) {
    if (source == null) {
      return "";
    }
    for (String line : source.split("\n")) {
      if (line.startsWith(name + "=")) {
        return line.substring(name.length() + 1);
      }
    }
    return "";
  }

  private static IdentityInput fixedKind(String source) {
    String kind = setting(source, "kind");
    return kind.isEmpty() ? null : IdentityInput.fromParameterName(kind);
  }

  /**
   * The retries of a run's requests: the client library's bulk defaults ({@link
   * MappingCache#BULK_RETRIES}): four attempts for failures, so that a server that is gone is said
   * within seconds, but an answer 429 (the key's rate limit) is waited out: a bulk job with {@value
   * OutputImport#IN_FLIGHT} requests in flight exceeds a small limit all the time.
   */
  static final RetryPolicy RETRIES = MappingCache.BULK_RETRIES;

  /**
   * The retries once the server has answered a request of the run ({@link
   * MappingCache#BULK_RETRIES_AFTER_ANSWER}): 17 attempts over about 30 s, so that a restart of the
   * server (6 s on the 2-core test machine, over 15 s when it was loaded) does not stop a run that
   * may have hours to go; a server never reached is still said within about 1.5 s.
   */
  static final RetryPolicy AFTER_ANSWER = MappingCache.BULK_RETRIES_AFTER_ANSWER;

  /**
   * The batches' calls, with the client library's transport, retries ({@link #RETRIES}, then {@link
   * #AFTER_ANSWER}) and error contract (as a {@link VeilClient} makes them), sent without an object
   * per identifier.
   */
  static ApiCaller caller(String baseUrl, String apiKey) {
    Transport transport =
        Transport.forUrl(
            baseUrl, null, VeilClient.DEFAULT_CONNECT_TIMEOUT, VeilClient.DEFAULT_REQUEST_TIMEOUT);
    return new ApiCaller(
        transport, RETRIES, AFTER_ANSWER, Sleeper.THREAD_SLEEP, Jitter.UNIFORM, apiKey);
  }

  private String usageProblem() {
    if (s.in() == null && !s.refresh()) {
      return "give --in FILE (and --out FILE), or --refresh";
    }
    if (s.out() == null) {
      return "give --out FILE (the output, which is also what --refresh re-maps)";
    }
    if (s.type() != null
        && IdentityInput.fromParameterName(s.type().toLowerCase(Locale.ROOT)) == null) {
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

  /**
   * What stops the files from being used, said before anything is opened or created: an input that
   * is missing, a directory, not a regular file (a pipe) or unreadable; an output, rejected or
   * state file that is a directory, a link or a device, or whose directory is missing. Null when
   * none.
   */
  private String fileProblem(Path statePath) {
    if (s.in() != null) {
      BasicFileAttributes in;
      try {
        in = Files.readAttributes(s.in(), BasicFileAttributes.class); // one look: links followed
      } catch (IOException e) {
        return e instanceof FileSystemException f ? FileProblems.describe(f) : e.getMessage();
      }
      if (in.isDirectory()) {
        return "--in " + s.in() + " is a directory, not a file of identifiers";
      }
      if (!in.isRegularFile()) {
        return "--in "
            + s.in()
            + " is not a regular file (a pipe or a device?): veil map reads its input more "
            + "than once and resumes it from a line, so save it to a file first";
      }
      if (!Files.isReadable(s.in())) {
        return "cannot read " + s.in() + ": permission denied";
      }
    }
    String problem = writableProblem("--out", s.out());
    if (problem == null) {
      problem = writableProblem("the rejected file", OutputFiles.rejectedFile(s.out()));
    }
    return problem != null
        ? problem
        : writableProblem(s.cache() != null ? "--cache" : "the state file", statePath);
  }

  /**
   * Which file given is also one that the run writes (the output, the rejected file, their
   * temporary files, the state file), or null: an input named as the output would be replaced by it
   * when the import ends.
   */
  private String clash(Path statePath) {
    Path out = s.out();
    Path rejected = OutputFiles.rejectedFile(out);
    Map<Path, String> written = new LinkedHashMap<>();
    written.put(out, "--out");
    written.put(OutputFiles.temporaryFile(out), "the output's temporary file");
    written.put(rejected, "the rejected file");
    written.put(OutputFiles.temporaryFile(rejected), "the rejected file's temporary file");
    for (Map.Entry<Path, String> w : written.entrySet()) {
      if (s.in() != null && sameFile(s.in(), w.getKey())) {
        return "--in "
            + s.in()
            + " is also "
            + w.getValue()
            + " ("
            + w.getKey()
            + "), which would overwrite it; "
            + "choose another --out";
      }
      if (sameFile(statePath, w.getKey())) {
        return (s.cache() != null ? "--cache " : "the state file ")
            + statePath
            + " is also "
            + w.getValue()
            + " ("
            + w.getKey()
            + "); choose another --cache";
      }
    }
    if (s.in() != null && sameFile(s.in(), statePath)) {
      return "--in "
          + s.in()
          + " is also the state file, which would overwrite it; choose another --cache";
    }
    return null;
  }

  /** Where the link {@code link} leads, or what it says when that cannot be resolved. */
  private static String realPath(Path link) {
    try {
      return link.toRealPath().toString();
    } catch (IOException e) {
      return "unresolved: " + e.getMessage();
    }
  }

  /**
   * Whether {@code a} and {@code b} name one file: the same path, or (when both exist) the same
   * file through a link. A file that cannot be compared counts as another; opening it says why.
   */
  private static boolean sameFile(Path a, Path b) {
    if (a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize())) {
      return true;
    }
    try {
      return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  /** Why {@code file} (what {@code what} names) cannot be written, or null. */
  private static String writableProblem(String what, Path file) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      Path parent = file.toAbsolutePath().getParent();
      return parent == null || Files.isDirectory(parent)
          ? null
          : "no such directory: " + parent + " (for " + what + " " + file + ")";
    } catch (IOException e) {
      return e instanceof FileSystemException f ? FileProblems.describe(f) : e.getMessage();
    }
    if (attributes.isDirectory()) {
      return what + " " + file + " is a directory; give a file's name";
    }
    // Written beside and renamed into place: a link would be replaced by a file, a device by a
    // file.
    if (attributes.isSymbolicLink()) {
      return what
          + " "
          + file
          + " is a symbolic link; give the file it names ("
          + realPath(file)
          + ")";
    }
    if (!attributes.isRegularFile()) {
      return what
          + " "
          + file
          + " exists and is not a regular file (a device or a pipe?); give a file's name";
    }
    return null;
  }

  private ProgressDisplay.Mode mode() {
    return switch (s.progress()) {
      case "bar" -> ProgressDisplay.Mode.BAR;
      case "lines" -> ProgressDisplay.Mode.LINES;
      case "none" -> ProgressDisplay.Mode.NONE;
      default -> ProgressDisplay.auto();
    };
  }

  /** Where a run that did not finish left its progress, and how to go on from there. */
  static String progressKept(Path state) {
    return "progress is kept in " + state + "; run the same command again to resume";
  }

  private int failed(ProgressDisplay display, String message, Path statePath, int code) {
    display.finishBar();
    err.println("veil map: " + message);
    if (statePath != null) {
      err.println("veil map: " + progressKept(statePath));
    }
    err.flush();
    return code;
  }
}
