package dev.veil.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code veil serve} in a child JVM (the test's own class path), for tests that must kill it
 * (SIGKILL, SIGTERM) or read every line it prints. Output lines are kept for inspection.
 */
public final class ServerProcess implements AutoCloseable {
  private static final Pattern HTTP = Pattern.compile("public API\\s+http://[^:]+:(\\d+)/");
  private static final Pattern GRPC = Pattern.compile("admin gRPC\\s+[^:]+:(\\d+)");
  private static final Pattern DEMO = Pattern.compile("demo site\\s+http://[^:]+:(\\d+)/");
  private static final Pattern CONSOLE = Pattern.compile("console\\s+http://[^:]+:(\\d+)/");

  private final Process process;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final CountDownLatch ready = new CountDownLatch(1);
  private volatile int httpPort;
  private volatile int grpcPort;
  private volatile int demoPort;
  private volatile int consolePort;

  private final Thread reader;

  private ServerProcess(Process process) {
    this.process = process;
    this.reader = new Thread(this::pump, "server-output");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code veil serve} with the data directory and extra arguments; waits until it prints
   * its ports.
   */
  public static ServerProcess start(Path dataDir, String... args)
      throws IOException, InterruptedException {
    return start(dataDir, List.of(), args);
  }

  /**
   * A node of a cluster on the PostgreSQL database at {@code dbUrl}, with 64 salt buckets and a 200
   * ms sync, plus {@code settings} (each {@code key=value}, given as {@code --set}).
   */
  public static ServerProcess startOnPostgres(Path dataDir, String dbUrl, String... settings)
      throws IOException, InterruptedException {
    List<String> args =
        new ArrayList<>(
            List.of("--db", dbUrl, "--set", "salt.buckets=64", "--set", "sync.interval=200ms"));
    for (String setting : settings) {
      args.add("--set");
      args.add(setting);
    }
    return start(dataDir, args.toArray(String[]::new));
  }

  /**
   * The command that runs {@code veil <args>} from the test class path in a JVM of its own, with
   * {@code jvmOptions} and a 256 MiB heap.
   */
  public static List<String> cliCommand(List<String> jvmOptions, List<String> args) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.veil.cli.Main"));
    cmd.addAll(args);
    return cmd;
  }

  /**
   * Like {@link #start(Path, String...)}, with JVM options after the default {@code -Xmx512m} (so
   * an {@code -Xmx} among them wins).
   */
  public static ServerProcess start(Path dataDir, List<String> jvmOptions, String... args)
      throws IOException, InterruptedException {
    return awaitReady(
        new ServerProcess(
            new ProcessBuilder(command(dataDir, jvmOptions, args))
                .redirectErrorStream(true)
                .start()));
  }

  /**
   * Starts {@code veil serve} like {@link #start}, under a file-descriptor limit of {@code
   * descriptors} (bash's {@code ulimit -n}, soft and hard, so the JVM cannot raise it).
   */
  public static ServerProcess startWithDescriptorLimit(
      int descriptors, Path dataDir, String... args) throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of("bash", "-c", "ulimit -n " + descriptors + " && exec \"$0\" \"$@\""));
    cmd.addAll(command(dataDir, List.of(), args));
    return awaitReady(new ServerProcess(new ProcessBuilder(cmd).redirectErrorStream(true).start()));
  }

  private static ServerProcess awaitReady(ServerProcess server) throws InterruptedException {
    if (!server.ready.await(60, TimeUnit.SECONDS) || server.grpcPort == 0) {
      server.close();
      throw new IllegalStateException(
          "server did not start; output:\n" + String.join("\n", server.lines));
    }
    return server;
  }

  /** Starts {@code veil serve} like {@link #start} but returns at once, before it is ready. */
  public static ServerProcess launch(Path dataDir, String... args) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(command(dataDir, List.of(), args)).redirectErrorStream(true);
    return new ServerProcess(pb.start());
  }

  private static List<String> command(Path dataDir, List<String> jvmOptions, String... args) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m"));
    cmd.addAll(jvmOptions);
    cmd.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            "dev.veil.cli.Main",
            "serve",
            "--data-dir",
            dataDir.toString(),
            "--port",
            "0",
            "--grpc-port",
            "0",
            "--console-port",
            "0"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private void pump() {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.add(line);
        Matcher h = HTTP.matcher(line);
        if (h.find()) {
          httpPort = Integer.parseInt(h.group(1));
        }
        Matcher d = DEMO.matcher(line);
        if (d.find()) {
          demoPort = Integer.parseInt(d.group(1));
        }
        Matcher c = CONSOLE.matcher(line);
        if (c.find()) {
          consolePort = Integer.parseInt(c.group(1));
        }
        Matcher g = GRPC.matcher(line);
        if (g.find()) {
          grpcPort = Integer.parseInt(g.group(1));
          ready.countDown();
        }
      }
    } catch (IOException e) {
      lines.add("<output closed: " + e.getMessage() + ">");
    }
    ready.countDown();
  }

  public int httpPort() {
    return httpPort;
  }

  public int grpcPort() {
    return grpcPort;
  }

  /** The demo site's port ({@code --demo}), or 0. */
  public int demoPort() {
    return demoPort;
  }

  /** The web console's port, or 0 ({@code console.enabled=false}). */
  public int consolePort() {
    return consolePort;
  }

  /** Every line printed so far (stdout and stderr). */
  public List<String> output() {
    return List.copyOf(lines);
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + httpPort;
  }

  /** Whether the child JVM is still running. */
  public boolean alive() {
    return process.isAlive();
  }

  /** The process id of the child JVM. */
  public long pid() {
    return process.pid();
  }

  /** SIGSTOP: the process freezes with its sockets open, as in a long GC pause or a hung VM. */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** SIGKILL: no shutdown hook runs. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /**
   * SIGTERM, then waits for the exit code and the last line of output. (Process.destroy would close
   * the output stream at once and lose what the server prints while shutting down.)
   */
  public int terminate(Duration timeout) throws InterruptedException {
    process.toHandle().destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      return -1;
    }
    reader.join(timeout.toMillis());
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill(); // SIGKILL works on a paused process too
    }
  }
}
