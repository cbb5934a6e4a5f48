package dev.veil.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop HTTP load generator: sends GET requests at a constant rate whatever the server's
 * speed, and measures each latency from the request's <em>intended</em> send time, so a server that
 * stalls is charged for every request that should have been sent meanwhile (no coordinated
 * omission, unlike a closed loop such as wrk's).
 *
 * <p>Design note. Plain NIO, as wrk does it in C, because a general HTTP client (Vert.x's) became
 * the bottleneck at about 13 k requests/s on one core. A pacing thread sleeps until the next
 * intended send time (timer slack makes that ~50–60 µs at the finest), publishes how many requests
 * are due and wakes the I/O thread; the I/O thread sends each due request on an idle keep-alive
 * connection (HTTP/1.1, one request at a time per connection, no pipelining) and reads responses by
 * {@code Content-Length}. A request that waits for a free connection is charged that wait. Samples
 * from the warm-up are dropped; the rest are sorted for exact percentiles; a request never answered
 * counts with the time it had waited when the run gave up. Prints {@code key=value} lines.
 *
 * <pre>
 * ConstantRateLoad --port 8080 --path '/v1/token/generate?email=user{n}%40example.com'
 *     --header 'Authorization: Bearer …' --rate 15000 --seconds 15 --warmup 5 [--connections 64]
 *     [--label latency]
 * </pre>
 *
 * <p>{@code {n}} in the path becomes a counter (modulo 100,000), so each request can name another
 * identity. Only responses with a {@code Content-Length} are understood (Veil's token and map
 * answers); anything else counts as an error and closes its connection.
 */
public final class ConstantRateLoad {
  private static final long NO_RESPONSE = Long.MIN_VALUE;
  private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(15);
  private static final byte[] HEADER_END = {'\r', '\n', '\r', '\n'};
  private static final long SELECT_TIMEOUT_MILLIS = 100;

  private final Settings settings;
  private final long[] latencyNanos;
  private final boolean[] failed;
  private final double intervalNanos;
  private final String requestHead;
  private final Selector selector;
  private final ArrayDeque<Connection> idle = new ArrayDeque<>();
  private long start;
  private volatile int due;

  private ConstantRateLoad(Settings settings) throws IOException {
    this.settings = settings;
    int total = settings.totalRequests();
    this.latencyNanos = new long[total];
    this.failed = new boolean[total];
    Arrays.fill(latencyNanos, NO_RESPONSE);
    this.intervalNanos = 1e9 / settings.rate;
    StringBuilder head =
        new StringBuilder(" HTTP/1.1\r\nHost: 127.0.0.1:").append(settings.port).append("\r\n");
    for (String header : settings.headers) {
      head.append(header).append("\r\n");
    }
    this.requestHead = head.append("\r\n").toString();
    this.selector = Selector.open();
  }

  public static void main(String[] args) throws IOException {
    Settings settings = Settings.parse(args);
    new ConstantRateLoad(settings).run();
  }

  private void run() throws IOException {
    List<Connection> all = new ArrayList<>();
    for (int i = 0; i < settings.connections; i++) {
      all.add(connect());
    }
    int total = latencyNanos.length;
    start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
    Thread pacer = new Thread(this::pace, "pacer");
    pacer.setDaemon(true);
    pacer.start();
    int sent = 0;
    int done = 0;
    long end = start + (long) (total * intervalNanos) + DRAIN_NANOS;
    long now = System.nanoTime();
    while (done < total && now < end) {
      int ready = due;
      while (sent < ready && !idle.isEmpty()) {
        send(idle.poll(), sent++);
      }
      selector.select(SELECT_TIMEOUT_MILLIS);
      for (SelectionKey key : selector.selectedKeys()) {
        Connection c = (Connection) key.attachment();
        int completed = c.read();
        done += completed;
        if (completed == 1 && c.channel.isOpen()) {
          idle.add(c);
        }
      }
      selector.selectedKeys().clear();
      now = System.nanoTime();
    }
    for (Connection c : all) {
      c.channel.close();
    }
    report(now);
  }

  /** Publishes how many requests are due as their intended times pass, waking the I/O loop. */
  private void pace() {
    int total = latencyNanos.length;
    int d = 0;
    while (d < total) {
      long wait = intended(d) - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
        continue;
      }
      long now = System.nanoTime();
      while (d < total && intended(d) <= now) {
        d++;
      }
      due = d;
      selector.wakeup();
    }
  }

  private long intended(int k) {
    return start + (long) (k * intervalNanos);
  }

  private Connection connect() throws IOException {
    SocketChannel channel =
        SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), settings.port));
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    channel.configureBlocking(false);
    Connection c = new Connection(channel);
    channel.register(selector, SelectionKey.OP_READ, c);
    idle.add(c);
    return c;
  }

  private void send(Connection c, int k) throws IOException {
    byte[] bytes = ("GET " + settings.path(k) + requestHead).getBytes(StandardCharsets.US_ASCII);
    ByteBuffer out = ByteBuffer.wrap(bytes);
    c.request = k;
    while (out.hasRemaining()) {
      if (c.channel.write(out) < 0) {
        throw new IOException("connection closed while sending");
      }
    }
  }

  private void complete(int k, boolean ok) {
    latencyNanos[k] = System.nanoTime() - intended(k);
    failed[k] = !ok;
  }

  /** One keep-alive connection with at most one request in flight. */
  private final class Connection {
    final SocketChannel channel;
    final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    int request = -1;

    Connection(SocketChannel channel) {
      this.channel = channel;
    }

    /** Reads what arrived; returns 1 if it completed the request in flight, else 0. */
    int read() throws IOException {
      int n = channel.read(in);
      if (n < 0) {
        return fail();
      }
      int headerEnd = indexOf(in, HEADER_END);
      if (headerEnd < 0 || request < 0) {
        return request < 0 && in.position() > 0 ? fail() : 0;
      }
      String head = new String(in.array(), 0, headerEnd, StandardCharsets.US_ASCII);
      int length = contentLength(head);
      if (length < 0) {
        return fail();
      }
      int whole = headerEnd + HEADER_END.length + length;
      if (in.position() < whole) {
        return 0;
      }
      complete(request, head.startsWith("HTTP/1.1 200 "));
      request = -1;
      in.clear();
      return 1;
    }

    private int fail() throws IOException {
      channel.close();
      if (request < 0) {
        return 0;
      }
      complete(request, false);
      request = -1;
      return 1;
    }
  }

  @SuppressWarnings(
      "ByteBufferBackingArray") // its one buffer is from ByteBuffer.allocate: offset 0
  private static int indexOf(ByteBuffer buffer, byte[] pattern) {
    byte[] a = buffer.array();
    outer:
    for (int i = 0; i + pattern.length <= buffer.position(); i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (a[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
        return Integer.parseInt(line.substring(15).strip());
      }
    }
    return -1;
  }

  private void report(long end) {
    int first = (int) Math.min(latencyNanos.length, (long) settings.warmupSeconds * settings.rate);
    long[] measured = new long[latencyNanos.length - first];
    int n = 0;
    int errors = 0;
    int missing = 0;
    for (int k = first; k < latencyNanos.length; k++) {
      if (latencyNanos[k] == NO_RESPONSE) {
        missing++;
        measured[n++] = end - intended(k);
        continue;
      }
      if (failed[k]) {
        errors++;
      }
      measured[n++] = latencyNanos[k];
    }
    Arrays.sort(measured, 0, n);
    String p = settings.label + ".";
    double seconds = (end - intended(first)) / 1e9;
    System.out.println(p + "target_rps=" + settings.rate);
    System.out.println(p + "connections=" + settings.connections);
    System.out.println(p + "requests=" + (n - missing));
    System.out.println(p + "errors=" + errors);
    System.out.println(p + "unanswered=" + missing);
    System.out.println(p + "achieved_rps=" + Math.round((n - missing) / seconds));
    System.out.println(p + "p50_ms=" + millis(percentile(measured, n, 0.50)));
    System.out.println(p + "p90_ms=" + millis(percentile(measured, n, 0.90)));
    System.out.println(p + "p99_ms=" + millis(percentile(measured, n, 0.99)));
    System.out.println(p + "p999_ms=" + millis(percentile(measured, n, 0.999)));
    System.out.println(p + "max_ms=" + millis(n == 0 ? 0 : measured[n - 1]));
  }

  private static long percentile(long[] sorted, int n, double q) {
    if (n == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(q * n) - 1;
    return sorted[Math.max(0, Math.min(n - 1, rank))];
  }

  private static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
  }

  /** Command-line settings, parsed once. */
  private record Settings(
      int port,
      String path,
      List<String> headers,
      int rate,
      int seconds,
      int warmupSeconds,
      int connections,
      String label) {
    int totalRequests() {
      return Math.toIntExact((long) rate * (warmupSeconds + seconds));
    }

    String path(int k) {
      return path.replace("{n}", Integer.toString(k % 100_000));
    }

    static Settings parse(String[] args) {
      int port = 0;
      String path = "/";
      List<String> headers = new ArrayList<>();
      int rate = 1000;
      int seconds = 15;
      int warmup = 5;
      int connections = 64;
      String label = "latency";
      for (int i = 0; i + 1 < args.length; i += 2) {
        String value = args[i + 1];
        switch (args[i]) {
          case "--port" -> port = Integer.parseInt(value);
          case "--path" -> path = value;
          case "--header" -> headers.add(value.strip());
          case "--rate" -> rate = Integer.parseInt(value);
          case "--seconds" -> seconds = Integer.parseInt(value);
          case "--warmup" -> warmup = Integer.parseInt(value);
          case "--connections" -> connections = Integer.parseInt(value);
          case "--label" -> label = value;
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (port <= 0 || rate <= 0 || seconds <= 0 || connections <= 0) {
        throw new IllegalArgumentException(
            "--port, --rate, --seconds and --connections must be positive");
      }
      return new Settings(port, path, headers, rate, seconds, warmup, connections, label);
    }
  }
}
