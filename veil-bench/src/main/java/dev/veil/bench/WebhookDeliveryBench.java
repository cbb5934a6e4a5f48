package dev.veil.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.client.Role;
import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import dev.veil.sdk.OptOutNotice;
import dev.veil.sdk.WebhookVerificationException;
import dev.veil.sdk.WebhookVerifier;
import dev.veil.server.VeilServer;
import dev.veil.webhook.WebhookService;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.IntStream;

/**
 * Webhook delivery of many opt-outs with the receiver up (docs/spec.md 4.1): one node (in this
 * process, on 127.0.0.1) with a registered webhook; {@code --clients} threads record {@code
 * --count} opt-outs through {@code POST /v1/optout} as fast as the node acknowledges them; a
 * receiver (Vert.x, 127.0.0.1) verifies every request's signature with the Java client's {@link
 * WebhookVerifier} and answers 200. Reports the write rate, the delivery throughput, duplicates,
 * and the lag from each opt-out's acknowledgement to its first arrival (p50, p99, max). Bounded by
 * {@code --max-seconds}: a run that has not delivered everything by then reports what arrived.
 *
 * <pre>{@code
 * bench/webhook.sh --count 100000 --clients 8
 * bench/webhook.sh --count 100000 --backlog true --max-backoff 1s
 * }</pre>
 *
 * <p>{@code --backlog true}: the receiver answers 503 while the opt-outs are written and 200 from
 * then on, so the arrivals measure how fast a backlog drains (first to last arrival).
 */
public final class WebhookDeliveryBench {
  private WebhookDeliveryBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    int count = Integer.parseInt(options.getOrDefault("count", "100000"));
    int clients = Integer.parseInt(options.getOrDefault("clients", "8"));
    long maxSeconds = Long.parseLong(options.getOrDefault("max-seconds", "600"));
    boolean backlog = Boolean.parseBoolean(options.getOrDefault("backlog", "false"));
    Path dataDir = Files.createTempDirectory("veil-bench-webhook");
    String db = options.getOrDefault("db", "sqlite:" + dataDir.resolve("veil.db"));
    VeilConfig config =
        ConfigLoader.load(
            null,
            Map.of(),
            Map.of(
                "http.port",
                "0",
                "grpc.port",
                "0",
                "console.enabled",
                "false",
                "salt.buckets",
                "1024",
                "data.dir",
                dataDir.toString(),
                "db",
                db,
                "webhook.concurrency",
                options.getOrDefault("concurrency", "16"),
                "webhook.max-backoff",
                options.getOrDefault("max-backoff", "1m")));
    List<String> emails =
        IntStream.range(0, count).mapToObj(i -> "bench" + i + "@example.com").toList();
    AtomicLongArray acked = new AtomicLongArray(count);
    AtomicLongArray arrived = new AtomicLongArray(count);
    AtomicInteger arrivals = new AtomicInteger();
    AtomicInteger duplicates = new AtomicInteger();
    AtomicInteger bad = new AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean receiverUp =
        new java.util.concurrent.atomic.AtomicBoolean(!backlog);
    Vertx vertx = Vertx.vertx();
    try (VeilServer server = VeilServer.start(config, Clock.systemUTC())) {
      String key =
          server
              .services()
              .clients()
              .create("bench", 0, Set.of(Role.OPTOUT, Role.MAPPER))
              .key()
              .reveal();
      long bidder =
          server.services().clients().create("bidder", 0, Set.of(Role.ID_READER)).client().id();
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      String base = "http://127.0.0.1:" + server.httpPort();
      Map<String, Integer> index = advertisingIds(http, base, key, emails);

      WebhookVerifier[] verifier = new WebhookVerifier[1];
      HttpServer receiver =
          vertx
              .createHttpServer()
              .requestHandler(
                  request -> {
                    long now = System.nanoTime();
                    if (!receiverUp.get()) {
                      request.response().setStatusCode(503).end();
                      return;
                    }
                    Integer i = verify(verifier[0], request, index);
                    if (i == null) {
                      bad.incrementAndGet();
                      request.response().setStatusCode(401).end();
                      return;
                    }
                    if (arrived.compareAndSet(i, 0, now)) {
                      arrivals.incrementAndGet();
                    } else {
                      duplicates.incrementAndGet();
                    }
                    request.response().setStatusCode(200).end();
                  })
              .listen(0, "127.0.0.1")
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      WebhookService.Created hook =
          server
              .services()
              .webhooks()
              .register(bidder, "http://127.0.0.1:" + receiver.actualPort() + "/optout");
      verifier[0] = new WebhookVerifier(hook.secret().reveal());

      System.out.printf(
          "Webhook delivery: %,d opt-outs, %d writer threads, store %s, webhook.concurrency %s,"
              + " %d cores, Java %s%n",
          count,
          clients,
          db.startsWith("sqlite:") ? "SQLite (embedded)" : "PostgreSQL",
          config.webhooks().concurrency(),
          Runtime.getRuntime().availableProcessors(),
          Runtime.version());
      System.out.println(
          backlog
              ? "backlog: the receiver answers 503 while the opt-outs are written, then 200;"
                  + " delivery is timed from then"
              : "live: the receiver is up from the start");
      long start = System.nanoTime();
      write(http, base, key, emails, clients, acked);
      long written = System.nanoTime();
      if (backlog) {
        receiverUp.set(true);
      }
      long deadline = start + TimeUnit.SECONDS.toNanos(maxSeconds);
      while (arrivals.get() < count && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      long done = System.nanoTime();
      report(count, start, written, done, acked, arrived, arrivals.get(), duplicates.get(), bad);
      System.out.printf(
          "webhook.max-backoff %s; the receiver's first 2xx came %.2f s after the last write%n",
          config.webhooks().maxBackoff(),
          Math.max(0, firstArrival(arrived, count) - written) / 1e9);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static long firstArrival(AtomicLongArray arrived, int count) {
    long first = Long.MAX_VALUE;
    for (int i = 0; i < count; i++) {
      long a = arrived.get(i);
      if (a != 0) {
        first = Math.min(first, a);
      }
    }
    return first;
  }

  private static Integer verify(
      WebhookVerifier verifier, HttpServerRequest request, Map<String, Integer> index) {
    if (verifier == null) {
      return null;
    }
    try {
      OptOutNotice notice =
          verifier.verify(
              request.method().name(),
              request.uri(),
              request.getHeader("X-Veil-Timestamp"),
              request.getHeader("X-Veil-Signature"));
      return index.get(notice.advertisingId());
    } catch (WebhookVerificationException e) {
      return null;
    }
  }

  /** Advertising id → index of its email, mapped before any opt-out. */
  private static Map<String, Integer> advertisingIds(
      HttpClient http, String base, String key, List<String> emails) throws Exception {
    ObjectMapper json = new ObjectMapper();
    Map<String, Integer> position = new HashMap<>();
    for (int i = 0; i < emails.size(); i++) {
      position.put(emails.get(i), i);
    }
    Map<String, Integer> index = new ConcurrentHashMap<>();
    for (int i = 0; i < emails.size(); i += 5000) {
      List<String> batch = emails.subList(i, Math.min(emails.size(), i + 5000));
      String body = json.writeValueAsString(Map.of("email", batch));
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/v1/identity/map"))
                  .header("Authorization", "Bearer " + key)
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      for (JsonNode m : json.readTree(r.body()).path("body").path("mapped")) {
        index.put(m.get("advertising_id").asText(), position.get(m.get("identifier").asText()));
      }
    }
    if (index.size() != emails.size()) {
      throw new IllegalStateException("mapped " + index.size() + " of " + emails.size());
    }
    return index;
  }

  private static void write(
      HttpClient http,
      String base,
      String key,
      List<String> emails,
      int clients,
      AtomicLongArray acked)
      throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    for (int t = 0; t < clients; t++) {
      pool.execute(
          () -> {
            for (int i = next.getAndIncrement(); i < emails.size(); i = next.getAndIncrement()) {
              HttpRequest request =
                  HttpRequest.newBuilder(URI.create(base + "/v1/optout"))
                      .header("Authorization", "Bearer " + key)
                      .header("Content-Type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"email\":\"" + emails.get(i) + "\"}"))
                      .build();
              try {
                HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() != 200) {
                  throw new IllegalStateException("opt-out answered " + r.statusCode());
                }
                acked.set(i, System.nanoTime());
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
              }
            }
          });
    }
    pool.shutdown();
    if (!pool.awaitTermination(1, TimeUnit.HOURS)) {
      throw new IllegalStateException("writers did not finish");
    }
  }

  private static void report(
      int count,
      long start,
      long written,
      long done,
      AtomicLongArray acked,
      AtomicLongArray arrived,
      int arrivals,
      int duplicates,
      AtomicInteger bad) {
    long[] lags = new long[arrivals];
    long firstArrival = Long.MAX_VALUE;
    long lastArrival = 0;
    int n = 0;
    for (int i = 0; i < count; i++) {
      long a = arrived.get(i);
      if (a != 0) {
        lags[n++] = Math.max(0, a - acked.get(i));
        firstArrival = Math.min(firstArrival, a);
        lastArrival = Math.max(lastArrival, a);
      }
    }
    Arrays.sort(lags, 0, n);
    double writeSeconds = (written - start) / 1e9;
    double deliverySeconds = (lastArrival - start) / 1e9;
    System.out.printf(
        "written:    %,d opt-outs in %.1f s = %,.0f/s (acknowledged, durable)%n",
        count, writeSeconds, count / writeSeconds);
    System.out.printf(
        "delivered:  %,d of %,d in %.1f s from the first write = %,.0f/s; %,d duplicates,"
            + " %d bad signatures%n",
        arrivals, count, deliverySeconds, arrivals / deliverySeconds, duplicates, bad.get());
    System.out.printf(
        "after the last write: the last arrival %.2f s later%n",
        Math.max(0, lastArrival - written) / 1e9);
    double arrivalSeconds = (lastArrival - firstArrival) / 1e9;
    System.out.printf(
        "first to last arrival: %.1f s = %,.0f deliveries/s%n",
        arrivalSeconds, arrivals / Math.max(arrivalSeconds, 1e-9));
    if (n > 0) {
      System.out.printf(
          "lag (acknowledged -> arrived): p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms%n",
          lags[(int) (n * 0.50)] / 1e6,
          lags[(int) Math.min(n - 1, n * 0.90)] / 1e6,
          lags[(int) Math.min(n - 1, n * 0.99)] / 1e6,
          lags[n - 1] / 1e6);
    }
    if (arrivals < count) {
      System.out.printf("INCOMPLETE: stopped after %.0f s%n", (done - start) / 1e9);
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value, got " + args[i]);
      }
      options.put(args[i].substring(2), args[i + 1]);
    }
    return options;
  }
}
