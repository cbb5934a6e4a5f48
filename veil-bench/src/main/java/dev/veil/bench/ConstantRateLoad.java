package dev.veil.bench;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop HTTP load generator: sends GET requests at a constant rate whatever the server's
 * speed, and measures each latency from the request's <em>intended</em> send time, so a server
 * that stalls is charged for every request that should have been sent meanwhile (no coordinated
 * omission, unlike a closed loop such as wrk's).
 *
 * <p>A pacing thread sleeps until the next request is due (timer slack makes that ~50–60 µs at the
 * finest) and hands the requests that became due to the client's single event loop; requests wait
 * for one of {@code --connections} keep-alive connections (HTTP/1.1, no pipelining), and that wait
 * counts in their latency. Samples from the warm-up are dropped; the rest are sorted for exact
 * percentiles (a request never answered counts with the time it had waited when the run gave up).
 * Prints {@code key=value} lines.
 *
 * <pre>
 * ConstantRateLoad --port 8080 --path '/v1/token/generate?email=user{n}%40example.com'
 *     --header 'Authorization: Bearer …' --rate 15000 --seconds 15 --warmup 5 [--connections 64]
 *     [--label latency]
 * </pre>
 *
 * <p>{@code {n}} in the path becomes a counter (modulo 100,000), so each request can name another
 * identity.
 */
public final class ConstantRateLoad {
  private static final long NO_RESPONSE = Long.MIN_VALUE;
  private static final long DRAIN_SECONDS = 15;

  private final Settings settings;
  private final HttpClientAgent client;
  private final Context context;
  private final long[] latencyNanos;
  private final boolean[] failed;
  private final CountDownLatch done;

  private ConstantRateLoad(Settings settings, Vertx vertx) {
    this.settings = settings;
    this.client = vertx.createHttpClient(
        new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(settings.port).setTcpNoDelay(true)
            .setKeepAlive(true).setPipelining(false),
        new PoolOptions().setHttp1MaxSize(settings.connections).setMaxWaitQueueSize(-1));
    this.context = vertx.getOrCreateContext();
    int total = settings.totalRequests();
    this.latencyNanos = new long[total];
    this.failed = new boolean[total];
    Arrays.fill(latencyNanos, NO_RESPONSE);
    this.done = new CountDownLatch(total);
  }

  public static void main(String[] args) throws InterruptedException {
    Settings settings = Settings.parse(args);
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    try {
      new ConstantRateLoad(settings, vertx).run();
    } finally {
      vertx.close().await();
    }
  }

  private void run() throws InterruptedException {
    int total = latencyNanos.length;
    double interval = 1e9 / settings.rate;
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
    int sent = 0;
    while (sent < total) {
      long now = System.nanoTime();
      long firstIntended = start + (long) (sent * interval);
      if (now < firstIntended) {
        LockSupport.parkNanos(firstIntended - now);
        continue;
      }
      int due = (int) Math.min(total, (now - start) / interval + 1);
      int from = sent;
      context.runOnContext(v -> {
        for (int k = from; k < due; k++) {
          send(k, start + (long) (k * interval));
        }
      });
      sent = due;
    }
    boolean drained = done.await(DRAIN_SECONDS, TimeUnit.SECONDS);
    long end = System.nanoTime();
    // Reading the arrays on this thread is safe: each slot was written before its countDown().
    report(start, end, drained);
  }

  private void send(int k, long intended) {
    client.request(HttpMethod.GET, settings.path(k))
        .compose(req -> withHeaders(req).send())
        .compose(resp -> resp.end().map(v -> resp.statusCode()))
        .onComplete(ar -> {
          latencyNanos[k] = System.nanoTime() - intended;
          failed[k] = ar.failed() || ar.result() != 200;
          done.countDown();
        });
  }

  private HttpClientRequest withHeaders(HttpClientRequest req) {
    for (String[] header : settings.headers) {
      req.putHeader(header[0], header[1]);
    }
    return req;
  }

  private void report(long start, long end, boolean drained) {
    int first = (int) Math.min(latencyNanos.length, (long) (settings.warmupSeconds * settings.rate));
    long[] measured = new long[latencyNanos.length - first];
    int n = 0;
    int errors = 0;
    int missing = 0;
    double interval = 1e9 / settings.rate;
    for (int k = first; k < latencyNanos.length; k++) {
      if (latencyNanos[k] == NO_RESPONSE) {
        // Never answered: counts with the time it had waited when we gave up (a lower bound).
        missing++;
        measured[n++] = end - (start + (long) (k * interval));
        continue;
      }
      if (failed[k]) {
        errors++;
      }
      measured[n++] = latencyNanos[k];
    }
    long[] sorted = Arrays.copyOf(measured, n);
    Arrays.sort(sorted);
    String p = settings.label + ".";
    double measuredSeconds = (end - start) / 1e9 - settings.warmupSeconds;
    System.out.println(p + "target_rps=" + settings.rate);
    System.out.println(p + "connections=" + settings.connections);
    System.out.println(p + "requests=" + (n - missing));
    System.out.println(p + "errors=" + errors);
    System.out.println(p + "unanswered=" + missing + (drained ? "" : " (gave up waiting)"));
    System.out.println(p + "achieved_rps=" + Math.round((n - missing) / measuredSeconds));
    System.out.println(p + "p50_ms=" + millis(percentile(sorted, 0.50)));
    System.out.println(p + "p90_ms=" + millis(percentile(sorted, 0.90)));
    System.out.println(p + "p99_ms=" + millis(percentile(sorted, 0.99)));
    System.out.println(p + "p999_ms=" + millis(percentile(sorted, 0.999)));
    System.out.println(p + "max_ms=" + millis(n == 0 ? 0 : sorted[n - 1]));
  }

  private static long percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
  }

  private static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
  }

  /** Command-line settings, parsed once. */
  private record Settings(int port, String path, List<String[]> headers, int rate, int seconds, int warmupSeconds,
      int connections, String label) {
    int totalRequests() {
      return Math.toIntExact((long) rate * (warmupSeconds + seconds));
    }

    String path(int k) {
      return path.replace("{n}", Integer.toString(k % 100_000));
    }

    static Settings parse(String[] args) {
      int port = 0;
      String path = "/";
      List<String[]> headers = new ArrayList<>();
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
          case "--header" -> {
            int colon = value.indexOf(':');
            headers.add(new String[] {value.substring(0, colon).strip(), value.substring(colon + 1).strip()});
          }
          case "--rate" -> rate = Integer.parseInt(value);
          case "--seconds" -> seconds = Integer.parseInt(value);
          case "--warmup" -> warmup = Integer.parseInt(value);
          case "--connections" -> connections = Integer.parseInt(value);
          case "--label" -> label = value;
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (port <= 0 || rate <= 0 || seconds <= 0) {
        throw new IllegalArgumentException("--port, --rate and --seconds must be positive");
      }
      return new Settings(port, path, headers, rate, seconds, warmup, connections, label);
    }
  }
}
