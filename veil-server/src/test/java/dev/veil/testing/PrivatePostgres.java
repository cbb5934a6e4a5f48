package dev.veil.testing;

import static org.junit.jupiter.api.Assertions.fail;

import dev.veil.storage.PostgresTestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL server of a test's own, for tests that stop, kill or restart the database: {@code
 * initdb} into a fresh directory under the system temp dir, listening on 127.0.0.1 and a free port,
 * trust authentication, started and stopped with {@code pg_ctl}. Other tests' database
 * (127.0.0.1:5432) is never touched.
 *
 * <p>The binaries come from env {@value #BIN_ENV}, else the newest {@code
 * /usr/lib/postgresql/<version>/bin} that has {@code initdb}. PostgreSQL refuses to run as root:
 * when the test runs as root, every command runs as the {@code postgres} user through {@code
 * runuser}, and the directory is handed to that user. Without binaries (or, as root, without the
 * {@code postgres} user) {@link #start()} skips the test with a notice on stderr, or fails it when
 * env {@value PostgresTestDatabase#REQUIRE_ENV} is {@code 1}.
 *
 * <p>{@link #freeze()} and {@link #thaw()} send SIGSTOP and SIGCONT to the server and every process
 * it started: a frozen server keeps its sockets open, and the kernel still completes new TCP
 * connections to it, but nothing answers, as with a hung host or a stalled disk.
 *
 * <p>{@link #close()} thaws a frozen server, stops it ({@code immediate}) and deletes the
 * directory; a JVM shutdown hook does the same if the test never gets there.
 */
public final class PrivatePostgres implements AutoCloseable {
  public static final String BIN_ENV = "VEIL_POSTGRES_BIN";
  private static final long COMMAND_TIMEOUT_SECONDS = 120;

  private final Path bin;
  private final Path dir;
  private final int port;
  private final boolean asPostgresUser;
  private final Thread cleanup;
  private boolean closed;
  private boolean frozen;

  private PrivatePostgres(Path bin, Path dir, int port, boolean asPostgresUser) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
    this.asPostgresUser = asPostgresUser;
    this.cleanup = new Thread(this::stopAndDelete, "private-postgres-cleanup");
  }

  /** Creates and starts a server, or skips / fails the calling test as described above. */
  public static PrivatePostgres start() throws IOException, InterruptedException {
    Path bin = binaries().orElse(null);
    if (bin == null) {
      String configured = System.getenv(BIN_ENV);
      skipOrFail(
          configured == null || configured.isBlank()
              ? "no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin; set "
                  + BIN_ENV
              : BIN_ENV + "=" + configured + " holds no initdb");
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("veil-pg-");
    if (root) {
      UserPrincipal postgres;
      try {
        postgres =
            dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
      } catch (IOException e) {
        deleteTree(dir);
        skipOrFail("running as root and there is no 'postgres' user to run PostgreSQL as");
        throw e;
      }
      Files.setOwner(dir, postgres);
    }
    PrivatePostgres pg = new PrivatePostgres(bin, dir, freePort(), root);
    Runtime.getRuntime().addShutdownHook(pg.cleanup);
    try {
      pg.run(
          "initdb",
          "-D",
          pg.data().toString(),
          "-U",
          "postgres",
          "--auth=trust",
          "--encoding=UTF8",
          "--no-instructions");
      pg.startServer();
      return pg;
    } catch (IOException | RuntimeException | InterruptedException e) {
      pg.close();
      throw e;
    }
  }

  private static Optional<Path> binaries() {
    String configured = System.getenv(BIN_ENV);
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Path.of(configured.strip()))
          .filter(p -> Files.isExecutable(p.resolve("initdb")));
    }
    Path root = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(root)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(root)) {
      return versions
          .map(v -> v.resolve("bin"))
          .filter(
              b ->
                  Files.isExecutable(b.resolve("initdb"))
                      && Files.isExecutable(b.resolve("pg_ctl")))
          .max(Comparator.comparing(PrivatePostgres::versionOf));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static int versionOf(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static void skipOrFail(String reason) {
    if (PostgresTestDatabase.required()) {
      fail(reason + "; " + PostgresTestDatabase.REQUIRE_ENV + "=1 demands PostgreSQL");
    }
    System.err.println("\n**********************************************************************");
    System.err.println("* SKIPPING a test that needs a private PostgreSQL server: " + reason);
    System.err.println(
        "* Install PostgreSQL, or set " + PostgresTestDatabase.REQUIRE_ENV + "=1 to fail instead.");
    System.err.println("**********************************************************************\n");
    Assumptions.abort("private PostgreSQL unavailable: " + reason);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private Path data() {
    return dir.resolve("data");
  }

  /**
   * {@code postgresql://postgres@127.0.0.1:<port>/postgres}: a store URL for {@code veil serve
   * --db}.
   */
  public String url() {
    return "postgresql://postgres@127.0.0.1:" + port + "/postgres";
  }

  public int port() {
    return port;
  }

  /** A plain JDBC connection (auto-commit on) to the server's {@code postgres} database. */
  public Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", "postgres");
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", "30");
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", props);
  }

  /** Starts the stopped server and waits until it accepts connections. */
  public synchronized void startServer() throws IOException, InterruptedException {
    run(
        "pg_ctl",
        "-D",
        data().toString(),
        "-l",
        dir.resolve("server.log").toString(),
        "-w",
        "-t",
        "60",
        "-o",
        "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c max_connections=60",
        "start");
  }

  /**
   * Stops the server: {@code fast} (sessions are terminated, a checkpoint is written) or {@code
   * immediate} (like a crash: the next start replays the WAL).
   */
  public synchronized void stopServer(String mode) throws IOException, InterruptedException {
    run("pg_ctl", "-D", data().toString(), "-m", mode, "-w", "-t", "60", "stop");
  }

  /**
   * SIGSTOP to the postmaster, then to every process it started (it is stopped first, so it cannot
   * start one meanwhile). Sessions, sockets and the listening port stay open; nothing answers.
   */
  public synchronized void freeze() throws IOException, InterruptedException {
    long postmaster = postmasterPid();
    signal("STOP", List.of(postmaster));
    signal(
        "STOP",
        ProcessHandle.of(postmaster)
            .map(p -> p.descendants().map(ProcessHandle::pid).toList())
            .orElse(List.of()));
    frozen = true;
  }

  /** SIGCONT to every process of a frozen server, the postmaster last. */
  public synchronized void thaw() throws IOException, InterruptedException {
    long postmaster = postmasterPid();
    signal(
        "CONT",
        ProcessHandle.of(postmaster)
            .map(p -> p.descendants().map(ProcessHandle::pid).toList())
            .orElse(List.of()));
    signal("CONT", List.of(postmaster));
    frozen = false;
  }

  private long postmasterPid() throws IOException {
    return Long.parseLong(Files.readAllLines(data().resolve("postmaster.pid")).get(0).strip());
  }

  private static void signal(String name, List<Long> pids)
      throws IOException, InterruptedException {
    if (pids.isEmpty()) {
      return;
    }
    List<String> command = new ArrayList<>(List.of("kill", "-" + name));
    pids.forEach(pid -> command.add(Long.toString(pid)));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("kill -" + name + " " + pids + " failed: " + output);
    }
  }

  /** The server's own log, for a failing test's report. */
  public String serverLog() {
    try {
      return Files.readString(dir.resolve("server.log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<no server log: " + e.getMessage() + ">";
    }
  }

  private void run(String tool, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    if (asPostgresUser) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.add(bin.resolve(tool).toString());
    command.addAll(List.of(args));
    Path output = Files.createTempFile("veil-pg-cmd-", ".txt");
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(tool + " did not finish within " + COMMAND_TIMEOUT_SECONDS + " s");
      }
      if (p.exitValue() != 0) {
        throw new IOException(
            tool
                + " failed with exit code "
                + p.exitValue()
                + ":\n"
                + Files.readString(output, StandardCharsets.UTF_8));
      }
    } finally {
      Files.deleteIfExists(output);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopAndDelete();
    try {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or about to: it does the same.
    }
  }

  private void stopAndDelete() {
    if (Files.exists(data().resolve("postmaster.pid"))) {
      try {
        if (frozen) {
          thaw(); // a frozen server would not act on pg_ctl's signal
        }
        stopServer("immediate");
      } catch (IOException e) {
        System.err.println(
            "PrivatePostgres: stopping the server in " + dir + " failed: " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    deleteTree(dir);
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("PrivatePostgres: could not delete " + root + ": " + e.getMessage());
    }
  }
}
