package dev.veil.e2e;

import dev.veil.testing.Http;
import dev.veil.testing.PrivatePostgres;
import dev.veil.testing.ServerProcess;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The cluster of {@link MultiNodeFaultIT}: {@code veil serve} processes on one private PostgreSQL,
 * each node's state, and the time windows of every fault the scenario caused, so that the load can
 * tell a failure the fault explains from one it does not. Thread-safe: the scenario thread causes
 * faults while load threads pick nodes.
 */
final class FaultCluster implements AutoCloseable {
  enum State {
    UP,
    PAUSED,
    DOWN
  }

  /** One node: its data directory survives restarts, its process and ports do not. */
  static final class Node {
    final String name;
    final Path dataDir;
    volatile ServerProcess process;
    volatile Http http;
    volatile State state = State.DOWN;

    Node(String name, Path dataDir) {
      this.name = name;
      this.dataDir = dataDir;
    }

    int grpcPort() {
      return process.grpcPort();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * A fault of one node, or of the database ({@code node} null), from start until end (nanoTime).
   */
  private record Window(Node node, long start, long end) {}

  /**
   * How long after the database returns a refused write still counts as explained by the outage.
   */
  static final Duration RECOVERY = Duration.ofSeconds(5);

  private final PrivatePostgres database;
  private final List<String> serveArgs;
  private final List<Node> nodes = new ArrayList<>();
  private final List<Window> windows = new ArrayList<>();
  private final List<Window> open = new ArrayList<>();

  FaultCluster(PrivatePostgres database, List<Path> dataDirs, List<String> serveArgs) {
    this.database = database;
    this.serveArgs = List.copyOf(serveArgs);
    for (int i = 0; i < dataDirs.size(); i++) {
      nodes.add(new Node("node-" + (i + 1), dataDirs.get(i)));
    }
  }

  List<Node> nodes() {
    return nodes;
  }

  Node node(int index) {
    return nodes.get(index);
  }

  PrivatePostgres database() {
    return database;
  }

  /** Starts a node's process (again) on its data directory and waits until it serves. */
  void start(Node node) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of("--db", database.url()));
    serveArgs.forEach(a -> args.addAll(List.of("--set", a)));
    node.process = ServerProcess.start(node.dataDir, args.toArray(String[]::new));
    node.http = new Http(node.process.baseUrl(), HttpClient.Version.HTTP_1_1);
    node.state = State.UP;
  }

  /** SIGKILL; the node is down until {@link #restart}. */
  void kill(Node node) throws InterruptedException {
    openWindow(node);
    node.state = State.DOWN;
    node.process.kill();
  }

  void restart(Node node) throws IOException, InterruptedException {
    start(node);
    closeWindow(node);
  }

  /** SIGSTOP; no new load goes to the node until {@link #resume}. */
  void pause(Node node) throws IOException, InterruptedException {
    openWindow(node);
    node.state = State.PAUSED;
    node.process.pause();
  }

  void resume(Node node) throws IOException, InterruptedException {
    node.process.resume();
    node.state = State.UP;
    closeWindow(node);
  }

  /** Stops PostgreSQL like a crash ({@code immediate}: the next start replays the WAL). */
  void databaseDown() throws IOException, InterruptedException {
    openWindow(null);
    database.stopServer("immediate");
  }

  void databaseUp() throws IOException, InterruptedException {
    database.startServer();
    closeWindow(null);
  }

  /** A node that is up now, at random; empty if none is. */
  Optional<Node> anyUp(Random random) {
    List<Node> up = nodes.stream().filter(n -> n.state == State.UP).toList();
    return up.isEmpty() ? Optional.empty() : Optional.of(up.get(random.nextInt(up.size())));
  }

  /** A node other than {@code except} that is up now, at random. */
  Optional<Node> anyUpExcept(Node except, Random random) {
    List<Node> up = nodes.stream().filter(n -> n != except && n.state == State.UP).toList();
    return up.isEmpty() ? Optional.empty() : Optional.of(up.get(random.nextInt(up.size())));
  }

  /**
   * Whether a fault of {@code node} overlapped the time from {@code from} to {@code to} (nanoTime).
   */
  synchronized boolean nodeFault(Node node, long from, long to) {
    return overlapping(from, to, 0).anyMatch(w -> w.node() == node);
  }

  /**
   * Whether the database was down at some time from {@code from} to {@code to}, or had come back
   * less than {@link #RECOVERY} before: until a node's next probe finds it answering (at most a
   * second) and its pool has new connections, writes are still refused.
   */
  synchronized boolean databaseFault(long from, long to) {
    return overlapping(from, to, RECOVERY.toNanos()).anyMatch(w -> w.node() == null);
  }

  /**
   * Whether the database, or {@code node} itself, was down or frozen at some time from {@code from}
   * to {@code to}, or came back less than {@link #RECOVERY} before. A node frozen by SIGSTOP with a
   * store call in flight finds that call timed out when it resumes, and until its next probe finds
   * the database answering it refuses writes, as after a database outage: such a refusal is that
   * node's fault, not an unexplained one.
   */
  synchronized boolean storeFault(Node node, long from, long to) {
    return overlapping(from, to, RECOVERY.toNanos())
        .anyMatch(w -> w.node() == null || w.node() == node);
  }

  /** Whether any fault at all overlapped the time. */
  synchronized boolean anyFault(long from, long to) {
    return overlapping(from, to, RECOVERY.toNanos()).findAny().isPresent();
  }

  /** Whether {@code observer} or the database was disturbed during the time. */
  boolean disturbed(Node observer, long from, long to) {
    return nodeFault(observer, from, to) || databaseFault(from, to);
  }

  private Stream<Window> overlapping(long from, long to, long grace) {
    return Stream.concat(windows.stream(), open.stream())
        .filter(
            w ->
                w.start() <= to && from <= (w.end() == Long.MAX_VALUE ? w.end() : w.end() + grace));
  }

  private synchronized void openWindow(Node node) {
    open.add(new Window(node, System.nanoTime(), Long.MAX_VALUE));
  }

  private synchronized void closeWindow(Node node) {
    for (Window w : List.copyOf(open)) {
      if (w.node() == node) {
        open.remove(w);
        windows.add(new Window(node, w.start(), System.nanoTime()));
      }
    }
  }

  /** Every line each node printed, for a failing test's report. */
  String outputs() {
    StringBuilder out = new StringBuilder();
    for (Node n : nodes) {
      if (n.process != null) {
        List<String> lines = n.process.output();
        out.append("---- ").append(n.name).append(" (last 40 lines)\n");
        lines
            .subList(Math.max(0, lines.size() - 40), lines.size())
            .forEach(l -> out.append(l).append('\n'));
      }
    }
    return out.toString();
  }

  @Override
  public void close() throws InterruptedException {
    for (Node n : nodes) {
      if (n.process != null) {
        n.process.close();
      }
    }
  }
}
