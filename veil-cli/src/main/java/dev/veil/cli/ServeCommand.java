package dev.veil.cli;

import dev.veil.common.FileProblems;
import dev.veil.common.PrivateFiles;
import dev.veil.config.ConfigException;
import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import dev.veil.demo.DemoSite;
import dev.veil.observability.LibraryLogs;
import dev.veil.server.VeilServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code veil serve}: runs a node until SIGTERM or SIGINT. First routes the {@code
 * java.util.logging} records of gRPC and Netty into the structured log ({@link LibraryLogs}).
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    version = Main.VERSION,
    description = "Run the Veil service (public HTTP API, admin gRPC API and the web console).")
public final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--config", description = "Configuration file (.yaml, .yml or .properties).")
  Path configFile;

  @Option(
      names = "--set",
      description = "Override a setting, e.g. --set http.port=8081 (repeatable).")
  Map<String, String> settings = new LinkedHashMap<>();

  @Option(names = "--host", description = "HTTP listen address (http.host).")
  String host;

  @Option(names = "--port", description = "HTTP port (http.port).")
  Integer port;

  @Option(names = "--grpc-port", description = "Admin gRPC port (grpc.port).")
  Integer grpcPort;

  @Option(names = "--console-port", description = "Web console port (console.port).")
  Integer consolePort;

  @Option(names = "--db", description = "Store: a SQLite file path or a postgresql:// URL (db).")
  String db;

  @Option(
      names = "--data-dir",
      description = "Directory for the embedded store and admin.key (data.dir).")
  String dataDir;

  @Option(names = "--profile", description = "API profile: veil or uid2 (api.profile).")
  String profile;

  @Option(
      names = "--demo",
      description = "Also serve the demo publisher site on demo.port, default 8081 (demo.enabled).")
  boolean demo;

  @Override
  public Integer call() {
    LibraryLogs.routeToApplicationLog();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    VeilConfig config;
    try {
      config = ConfigLoader.load(configFile, System.getenv(), flags());
    } catch (ConfigException e) {
      err.println("veil: configuration error: " + e.getMessage());
      return 2;
    }
    // The hook goes in before the start, so that a SIGTERM during the start (seconds on a first
    // start, or with a slow database) still closes the node properly once it has started, instead
    // of the JVM halting half-way or the hook's late registration failing with a stack trace.
    StopGate gate = new StopGate();
    Runtime.getRuntime().addShutdownHook(new Thread(gate::stop, "veil-shutdown"));
    VeilServer server;
    Path[] keyFile = {config.dataDir().resolve("admin.key")};
    String[] keySaveError = {null};
    try {
      // The key file is written before the node reports ready and before anything is printed.
      server =
          VeilServer.start(
              config,
              Clock.systemUTC(),
              key -> {
                try {
                  keyFile[0] = freeKeyFile(config.dataDir());
                  writeSecret(keyFile[0], key);
                } catch (IOException e) {
                  keySaveError[0] =
                      e instanceof FileSystemException f
                          ? FileProblems.describe(f)
                          : e.getMessage();
                }
              },
              DemoSite::start);
    } catch (RuntimeException e) {
      gate.startFailed();
      err.println("veil: cannot start: " + e.getMessage());
      return 1;
    }
    if (!gate.started(server::close)) {
      err.println("veil: stopped while starting");
      return 143;
    }
    printNextSteps(out, config, server, keyFile[0], keySaveError[0]);
    gate.awaitStopped();
    return 0;
  }

  /**
   * Closes a node on SIGTERM, also one that arrives while it is still starting: {@link #stop} (the
   * shutdown hook) closes the node if it has started; if not, it marks the stop and waits, and the
   * starting thread, told by {@link #started} that a stop came, closes the node itself. The JVM
   * exits once the hook returns, so the hook returns only when the node is closed or never was.
   */
  static final class StopGate {
    private final CountDownLatch done = new CountDownLatch(1);
    private Runnable closeNode;
    private boolean stopRequested;

    /** The shutdown hook: closes the node, or waits until its start has ended and it is closed. */
    void stop() {
      Runnable toClose;
      synchronized (this) {
        stopRequested = true;
        toClose = closeNode;
      }
      if (toClose == null) {
        awaitStopped();
        return;
      }
      close(toClose);
    }

    /**
     * The node has started and {@code closeNode} closes it; returns false (having closed it) when a
     * stop came during the start.
     */
    boolean started(Runnable closeNode) {
      synchronized (this) {
        if (!stopRequested) {
          this.closeNode = closeNode;
          return true;
        }
      }
      close(closeNode);
      return false;
    }

    /** The start failed: nothing to close. */
    void startFailed() {
      done.countDown();
    }

    /** Waits until the node is closed (or its start failed). */
    void awaitStopped() {
      try {
        done.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void close(Runnable toClose) {
      try {
        toClose.run();
      } finally {
        done.countDown();
      }
    }
  }

  /**
   * The settings given on the command line: {@code --set}s and the shortcuts, each at most once.
   */
  private Map<String, String> flags() {
    Map<String, String> flags = new LinkedHashMap<>(settings);
    putIf(flags, "http.host", "--host", host);
    putIf(flags, "http.port", "--port", port);
    putIf(flags, "grpc.port", "--grpc-port", grpcPort);
    putIf(flags, "console.port", "--console-port", consolePort);
    putIf(flags, "db", "--db", db);
    putIf(flags, "data.dir", "--data-dir", dataDir);
    putIf(flags, "api.profile", "--profile", profile);
    if (demo) {
      putIf(flags, "demo.enabled", "--demo", "true");
    }
    return flags;
  }

  /**
   * Adds a shortcut's setting; one also given with {@code --set} is refused rather than one of the
   * two ignored.
   */
  private static void putIf(Map<String, String> flags, String key, String shortcut, Object value) {
    if (value == null) {
      return;
    }
    if (flags.containsKey(key)) {
      throw new ConfigException(
          key + " is given twice: by " + shortcut + " and by --set " + key + "; give it once");
    }
    flags.put(key, value.toString());
  }

  private static void printNextSteps(
      PrintWriter out, VeilConfig config, VeilServer server, Path keyFile, String keySaveError) {
    String base = "http://" + config.http().host() + ":" + server.httpPort();
    List<String> lines = new ArrayList<>();
    lines.add("");
    lines.add("Veil is running.");
    server
        .bootstrapAdminKey()
        .ifPresent(
            key -> {
              lines.add("");
              lines.add("First start: an admin key was created. It is shown only now:");
              lines.add("  " + key);
              if (keySaveError == null) {
                lines.add("  (also saved to " + keyFile + ", readable only by you)");
                if (!keyFile.getFileName().toString().equals("admin.key")) {
                  lines.add(
                      "  ("
                          + keyFile.resolveSibling("admin.key")
                          + " already held a key, of another store or an earlier one:");
                  lines.add(
                      "   it was kept as it is; `veil admin` reads that file unless given this one,"
                          + " as below)");
                }
              } else {
                lines.add(
                    "  (could not save it to " + keyFile + ": " + keySaveError + "; copy it now)");
              }
            });
    lines.add("");
    lines.add("Next steps:");
    // `veil admin` reads data/admin.key by default; another data directory needs the key passed on.
    boolean defaultKeyFile = keyFile.normalize().equals(Path.of("data", "admin.key"));
    lines.add(
        "  1. Create an API key for your site (uses "
            + (defaultKeyFile ? "data/admin.key" : keyFile)
            + "):");
    lines.add(
        "       KEY=$("
            + (defaultKeyFile ? "" : "VEIL_ADMIN_KEY=\"$(cat " + keyFile + ")\" ")
            + "./veil admin client create --name my-site --roles GENERATOR,MAPPER --port "
            + server.grpcPort()
            + " --key-only)");
    lines.add("  2. Generate a token with it:");
    lines.add(
        "       curl -H \"Authorization: Bearer $KEY\" '"
            + base
            + "/v1/token/generate?email=user@example.com'");
    lines.add(
        "  3. Or paste the README's session (\"A whole session, to paste\"); every endpoint is in"
            + " docs/api.md, the browser SDK in docs/browser-sdk.md, several nodes in"
            + " docs/multi-node.md.");
    server
        .consolePort()
        .ifPresent(
            port ->
                lines.add(
                    "  4. Or click: open the web console at "
                        + consoleUrl(config, port)
                        + " and sign in with the admin key (docs/operators.md)."));
    lines.add("Stop with Ctrl-C (or SIGTERM): in-flight requests finish first.");
    lines.add("");
    lines.add("  public API  " + base + "/v1/...   (health: " + base + "/ops/healthz)");
    server
        .demoPort()
        .ifPresent(
            port ->
                lines.add(
                    "  demo site   http://"
                        + config.http().host()
                        + ":"
                        + port
                        + "/   (a publisher page using the browser SDK)"));
    server
        .consolePort()
        .ifPresent(
            port ->
                lines.add(
                    "  console     "
                        + consoleUrl(config, port)
                        + "   (the web console: sign in with an admin key)"));
    lines.add("  admin gRPC  " + config.grpc().host() + ":" + server.grpcPort());
    lines.forEach(out::println);
    out.flush();
  }

  /** The console's address as a browser on this machine opens it. */
  private static String consoleUrl(VeilConfig config, int port) {
    String host = config.console().host();
    if (host.equals("0.0.0.0") || host.equals("::")) {
      host = "127.0.0.1";
    } else if (host.indexOf(':') >= 0) {
      host = "[" + host + "]";
    }
    return "http://" + host + ":" + port + "/";
  }

  /**
   * Where to save a new admin key: {@code admin.key} in the data directory, or, if that file exists
   * (another store's key, say another {@code --db} with the same data directory, or the key of a
   * store since deleted), the first free {@code admin-2.key}, {@code admin-3.key}, …: a key file is
   * never overwritten, as it may be the only copy of a key.
   */
  static Path freeKeyFile(Path dataDir) {
    Path file = dataDir.resolve("admin.key");
    for (int n = 2; Files.exists(file, LinkOption.NOFOLLOW_LINKS); n++) {
      file = dataDir.resolve("admin-" + n + ".key");
    }
    return file;
  }

  /** Writes {@code secret} to a new file readable by its owner only; never replaces a file. */
  static void writeSecret(Path file, String secret) throws IOException {
    PrivateFiles.createDirectories(file.toAbsolutePath().getParent());
    PrivateFiles.createFile(file);
    Files.writeString(file, secret + System.lineSeparator());
  }
}
