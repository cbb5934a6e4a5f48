package dev.veil.cli.map;

import dev.veil.common.FileProblems;
import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.CacheReport;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.IdentifierBatch;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.Rejection;
import dev.veil.sdk.VeilApiException;
import dev.veil.sdk.VeilClient;
import dev.veil.sdk.VeilTransportException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
 * One {@code veil map} run, on the client library's {@link MappingCache}: an import ({@link
 * CacheImport}: the input read into the cache, mapped, and the cache's table written as the output
 * in the order identifiers were first read), then, with {@code --refresh}, a refresh ({@link
 * MappingCache#refresh()}: over v1 the entries whose bucket rotated after they were mapped are
 * mapped again; over v3 those whose refresh time passed, and opted-out identities are removed) and
 * the output written anew. {@code --refresh} alone refreshes the output of an earlier import. With
 * the client's secret the run speaks v3, otherwise v1.
 *
 * <p>The cache ({@code <out>.veil-cache}, or {@code --cache}) is the run's progress: it records the
 * input line its identifiers reach and every answer, so the command can be killed at any point and
 * run again. The output and the rejected file are only ever replaced whole ({@link MapFiles}).
 */
public final class MapRun {
  /** 0 ok, 1 refused or file error, 2 usage, 3 cannot connect. */
  static final int OK = 0;

  static final int FAILED = 1;
  static final int USAGE = 2;
  static final int UNREACHABLE = 3;

  /**
   * The cache's record that its identifiers are hashed here before they are sent ({@code
   * --hash-locally}), kept as a checkpoint: a later {@code --refresh} hashes them too, whatever its
   * own command line says.
   */
  static final String HASHED_HERE = "veil map: hash-locally";

  /** Identifiers added to the cache at once (the first chunk is smaller, to map sooner). */
  private static final int CHUNK = 5_000;

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
      String progress,
      String clientSecret) {}

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
    if (server.apiKey() == null) {
      // Said before any file is made: the server's 401 would name an HTTP header, not the option.
      err.println("veil map: " + ServerOptions.missingKey("MAPPER"));
      return USAGE;
    }
    String secret = s.clientSecret() != null ? s.clientSecret() : ServerOptions.clientSecret();
    VeilClient client;
    try {
      client = client(secret, s.hashLocally());
    } catch (IllegalArgumentException e) {
      err.println(
          "veil map: " + ServerOptions.inOptionTerms(e).replace("clientSecret", "--client-secret"));
      return USAGE;
    }
    MapFiles files = MapFiles.of(s.out(), s.cache());
    String clash = clash(files);
    if (clash != null) {
      err.println("veil map: " + clash);
      return USAGE;
    }
    String fileProblem = fileProblem(files);
    if (fileProblem != null) {
      err.println("veil map: " + fileProblem);
      return FAILED;
    }
    ProgressDisplay display = new ProgressDisplay(err, mode());
    long started = System.nanoTime();
    Path kept = files.cache();
    try (Interruption interruption = Interruption.watch(display, err, files.cache());
        OutputLock outputLock = OutputLock.take(files)) {
      Path previous = files.previousReleaseState();
      if (previous != null) {
        return failed(display, previousRelease(previous), null, FAILED);
      }
      if (s.in() == null && !Files.exists(files.cache())) {
        return failed(display, nothingToRefresh(files), null, FAILED);
      }
      Progress progress = new Progress(display);
      try (CacheSession session = new CacheSession(files.cache(), progress)) {
        MappingCache cache = session.open(client);
        if (s.in() != null) {
          cache = runImport(session, cache, client, files, display, progress);
        }
        if (s.refresh()) {
          if (cache.size() == 0) {
            return failed(display, nothingToRefresh(files), null, FAILED);
          }
          if (!s.hashLocally() && cache.checkpoint(HASHED_HERE).isPresent()) {
            // Identifiers hashed here when they were imported are hashed here again.
            cache = session.reopen(client(secret, true));
          }
          refresh(cache, files, display, secret != null);
        }
      }
      display.message("done in " + Numbers.tenths((System.nanoTime() - started) / 1e9) + " s");
      return OK;
    } catch (VeilApiException e) {
      return failed(display, "the server refused: " + e.getMessage(), kept, FAILED);
    } catch (VeilTransportException e) {
      return failed(
          display, "cannot reach " + client.baseUrl() + ": " + e.getMessage(), kept, UNREACHABLE);
    } catch (FileSystemException e) {
      // A file the run writes (a full disk): what is on disk stands, and the same command goes on
      // from it.
      boolean written =
          e.getFile() != null
              && (files.isWritten(Path.of(e.getFile())) || sameFile(kept, Path.of(e.getFile())));
      return failed(display, FileProblems.describe(e), written ? kept : null, FAILED);
    } catch (UncheckedIOException e) {
      // The cache's own failures (a full disk, a file in use or of another kind) name the file.
      return failed(display, e.getMessage(), Files.exists(kept) ? kept : null, FAILED);
    } catch (IOException e) {
      return failed(display, e.getMessage(), null, FAILED);
    } catch (IllegalArgumentException e) {
      display.finishBar();
      err.println("veil map: " + e.getMessage());
      return USAGE;
    } catch (OutOfMemoryError e) {
      // Everything recorded so far stands (the cache is as crash-safe as after a kill); say how to
      // give the JVM more, instead of its stack trace.
      long maxMb = Runtime.getRuntime().maxMemory() >> 20;
      return failed(
          display,
          "out of memory (the JVM's heap is at most "
              + Numbers.grouped(maxMb)
              + " MB); run it again with a larger one, e.g. VEIL_JAVA_OPTS=-Xmx"
              + Math.max(1, (4 * maxMb) >> 10)
              + "g",
          kept,
          FAILED);
    }
  }

  /** A client for the run: v3 with a secret, hashing here if {@code hashLocally}. */
  private VeilClient client(String secret, boolean hashLocally) {
    VeilClient.Builder builder =
        VeilClient.builder()
            .baseUrl(server.url())
            .apiKey(server.apiKey())
            .batchSize(s.batchSize())
            .hashIdentifiers(hashLocally);
    if (secret != null) {
      builder.clientSecret(secret);
    }
    return builder.build();
  }

  /**
   * Imports {@code --in}: starts the cache anew if it was made from another input (or with other
   * options), maps what the input adds, installs the output and the rejected file. Returns the
   * cache, which may have been opened anew.
   */
  private MappingCache runImport(
      CacheSession session,
      MappingCache cache,
      VeilClient client,
      MapFiles files,
      ProgressDisplay display,
      Progress progress)
      throws IOException {
    IdentityInput kind =
        s.type() == null
            ? null
            : IdentityInput.fromParameterName(s.type().toLowerCase(Locale.ROOT));
    IdentifierFile file = new IdentifierFile(s.in(), kind, s.column());
    String source = source(file);
    if (cache.checkpoint(source).isEmpty() && holdsAnything(cache)) {
      display.message(
          files.cache()
              + " holds the mapping of another input (or of other --type, --column or"
              + " --hash-locally): mapping "
              + s.in()
              + " anew");
      cache = session.recreate(client);
    }
    if (s.hashLocally() && cache.checkpoint(HASHED_HERE).isEmpty()) {
      cache.add(new IdentifierBatch(0), HASHED_HERE, 1);
    }
    long skip = cache.checkpoint(source).orElse(0);
    long expected = Math.max(0, file.estimateLines() - skip);
    cache.reserve(expected);
    progress.expect(expected);
    display.phase("mapping");
    long readStart = System.nanoTime();
    CacheImport.Result r =
        new CacheImport(cache, Math.min(MappingCache.FIRST_BATCH_SIZE, s.batchSize()), CHUNK)
            .run(file, source, files.out());
    MapFiles.install(files.out());
    long rejected = writeRejected(cache, files);
    reportImport(r, display, readStart, files, rejected, file.linesWithoutValue());
    return cache;
  }

  /** {@code --refresh}: refreshes the cache, then writes the output and the rejected file anew. */
  private void refresh(MappingCache cache, MapFiles files, ProgressDisplay display, boolean v3)
      throws IOException {
    display.phase("re-mapping");
    CacheReport r = cache.refresh();
    display.finishBar();
    if (!v3) {
      display.message(
          Numbers.grouped(r.rotatedBuckets())
              + " bucket(s) rotated since the last poll; "
              + Numbers.grouped(r.markedStale())
              + " entries were mapped before their bucket rotated");
    } else {
      display.message(
          Numbers.grouped(r.markedStale()) + " entries were due for refresh (refresh_from passed)");
    }
    display.message(
        "mapped "
            + Numbers.grouped(r.mapped())
            + " new, re-mapped "
            + Numbers.grouped(r.remapped())
            + " in "
            + Numbers.tenths(display.phaseSeconds())
            + " s; removed "
            + Numbers.grouped(r.optedOut())
            + " opted out, "
            + Numbers.grouped(r.invalid())
            + " invalid");
    long[] rows = {0};
    MapFiles.replace(files.out(), o -> rows[0] = cache.writeCsv(o));
    long rejected = writeRejected(cache, files);
    display.message(wrote(rows[0], rejected, files));
  }

  /**
   * Writes {@code <out>.rejected.csv} anew from the cache's rejections (each identifier once, with
   * its latest reason), or removes it when there are none; returns how many.
   */
  private static long writeRejected(MappingCache cache, MapFiles files) throws IOException {
    long[] count = {0};
    Path rejected = files.rejected();
    MapFiles.writeTemporary(
        rejected,
        out -> {
          out.write(MapFiles.REJECTED_HEADER.getBytes(StandardCharsets.US_ASCII));
          cache.forEachRejection(r -> count[0] += writeRejection(out, r));
        });
    if (count[0] == 0) {
      MapFiles.remove(rejected);
    } else {
      MapFiles.install(rejected);
    }
    return count[0];
  }

  private static int writeRejection(OutputStream out, Rejection r) {
    String row = Csv.field(r.identifier().value()) + "," + Csv.field(r.reason().wireName()) + "\n";
    try {
      out.write(row.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return 1;
  }

  /** Whether the cache holds an entry or a rejection. */
  private static boolean holdsAnything(MappingCache cache) {
    if (cache.size() > 0) {
      return true;
    }
    boolean[] any = {false};
    cache.forEachRejection(r -> any[0] = true);
    return any[0];
  }

  private void reportImport(
      CacheImport.Result r,
      ProgressDisplay display,
      long readStart,
      MapFiles files,
      long rejected,
      long withoutValue) {
    if (r.alreadyDone()) {
      display.message(
          s.out()
              + " is complete for "
              + s.in()
              + " ("
              + Numbers.grouped(r.rows())
              + " rows): nothing to map; --refresh re-maps the rows due for it");
      return;
    }
    display.progress(r.report().sent(), r.report().sent()); // every identifier is answered by now
    display.finishBar();
    if (r.skippedLines() > 0) {
      display.message(
          "resumed reading " + s.in() + " after line " + Numbers.grouped(r.skippedLines()));
    }
    long invalid = r.added().invalid() + r.report().invalid();
    display.message(
        "read "
            + Numbers.grouped(Math.max(0, r.lines() - r.skippedLines()))
            + " lines in "
            + Numbers.tenths((System.nanoTime() - readStart) / 1e9)
            + " s: "
            + Numbers.grouped(r.read())
            + " identifiers, "
            + Numbers.grouped(r.added().invalid())
            + " invalid"
            + (r.added().alreadyPresent() > 0
                ? ", " + Numbers.grouped(r.added().alreadyPresent()) + " already held"
                : "")
            + (withoutValue > 0
                ? ", " + Numbers.grouped(withoutValue) + " without a value in the column (skipped)"
                : ""));
    display.message(
        "mapped "
            + Numbers.grouped(r.report().mapped())
            + " new in "
            + Numbers.tenths(display.phaseSeconds())
            + " s; removed "
            + Numbers.grouped(r.report().optedOut())
            + " opted out, "
            + Numbers.grouped(invalid)
            + " invalid");
    display.message(wrote(r.rows(), rejected, files));
    ArchiveMark.afterImport(r.report().sent());
  }

  private static String wrote(long rows, long rejected, MapFiles files) {
    return "wrote "
        + Numbers.grouped(rows)
        + " rows to "
        + files.out()
        + (rejected > 0
            ? " and " + Numbers.grouped(rejected) + " rejected identifiers to " + files.rejected()
            : "");
  }

  /**
   * What the cache's import belongs to: the input file (path, size, time) and what decides how it
   * is read (a changed file or option starts the cache anew). Its checkpoint is kept under this
   * name.
   */
  private String source(IdentifierFile file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(s.in(), BasicFileAttributes.class);
    IdentityInput fixed = file.fixedKind();
    return "veil map input="
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

  private String nothingToRefresh(MapFiles files) {
    return "nothing to refresh in "
        + files.cache()
        + ": map a file into "
        + s.out()
        + " first (veil map --in FILE --out "
        + s.out()
        + ")";
  }

  private String previousRelease(Path state) {
    return state
        + " holds the progress of an earlier release of veil map, which this one does not read:"
        + " remove it and map the input again (veil map --in FILE --out "
        + s.out()
        + "); the output is then written anew";
  }

  /** Passes the cache's progress to the display, against the input's estimated size. */
  private static final class Progress implements MappingCache.Listener {
    private final ProgressDisplay display;
    private volatile long expected;

    Progress(ProgressDisplay display) {
      this.display = display;
    }

    void expect(long identifiers) {
      expected = identifiers;
    }

    @Override
    public void progress(long done, long total) {
      display.progress(done, Math.max(total, expected));
    }

    @Override
    public void removed(Identifier identifier, MapOutcome.Reason reason) {
      // Counted in the run's report; the rejected file lists them.
    }
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
   * cache file that is a directory, a link or a device, or whose directory is missing. Null when
   * none.
   */
  private String fileProblem(MapFiles files) {
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
      problem = writableProblem("the rejected file", files.rejected());
    }
    return problem != null
        ? problem
        : writableProblem(s.cache() != null ? "--cache" : "the cache file", files.cache());
  }

  /**
   * Which file given is also one that the run writes (the output, the rejected file, their
   * temporary files, the lock, the cache), or null: an input named as the output would be replaced
   * by it when the import ends.
   */
  private String clash(MapFiles files) {
    Path out = s.out();
    Path cache = files.cache();
    Path rejected = files.rejected();
    Map<Path, String> written = new LinkedHashMap<>();
    written.put(out, "--out");
    written.put(MapFiles.temporaryFile(out), "the output's temporary file");
    written.put(rejected, "the rejected file");
    written.put(MapFiles.temporaryFile(rejected), "the rejected file's temporary file");
    written.put(files.lock(), "the output's lock file");
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
      if (sameFile(cache, w.getKey())) {
        return (s.cache() != null ? "--cache " : "the cache file ")
            + cache
            + " is also "
            + w.getValue()
            + " ("
            + w.getKey()
            + "); choose another --cache";
      }
    }
    if (s.in() != null && sameFile(s.in(), cache)) {
      return "--in "
          + s.in()
          + " is also the cache file, which would overwrite it; choose another --cache";
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

  private int failed(ProgressDisplay display, String message, Path kept, int code) {
    display.finishBar();
    err.println("veil map: " + message);
    if (kept != null) {
      err.println("veil map: " + progressKept(kept));
    }
    err.flush();
    return code;
  }
}
