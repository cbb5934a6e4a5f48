package dev.veil.bench;

import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc;
import dev.veil.grpc.deduction.v1.DeductionAdminApiGrpc.DeductionAdminApiBlockingStub;
import dev.veil.grpc.deduction.v1.DeductionReq;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.server.VeilServer;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Throughput of {@code DeductionAdminApi} over a real gRPC channel: {@code CreateDeduction} (each
 * call a durable write) and {@code GetDeductionList} returning 10,000 records (page_size 0), plus a
 * page of 100 for comparison. Starts a {@link VeilServer} in this JVM on a fresh store and drives
 * it from client threads, each with its own plaintext channel on loopback, so client and server
 * share the machine's cores.
 *
 * <p>Not JMH: each figure is one timed run after a warm-up, printed as RPCs/s with latency
 * percentiles. Run it with {@code bench/deduction.sh [--clients N] [--records N] [--seconds S]
 * [--db URL]}.
 */
public final class DeductionRpcBench {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final int clients;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<DeductionAdminApiBlockingStub> stubs = new ArrayList<>();

  private DeductionRpcBench(int port, String adminKey, int clients) {
    this.clients = clients;
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + adminKey);
    for (int i = 0; i < clients; i++) {
      ManagedChannel channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", port)
              .usePlaintext()
              .maxInboundMessageSize(64 * 1024 * 1024)
              .build();
      channels.add(channel);
      stubs.add(
          DeductionAdminApiGrpc.newBlockingStub(channel)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers)));
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    int clients = Integer.parseInt(options.getOrDefault("clients", "8"));
    int records = Integer.parseInt(options.getOrDefault("records", "10000"));
    int seconds = Integer.parseInt(options.getOrDefault("seconds", "15"));
    Path dataDir = Files.createTempDirectory("veil-bench-deduction");
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
                "64",
                "data.dir",
                dataDir.toString(),
                "db",
                db));
    try (VeilServer server = VeilServer.start(config, Clock.systemUTC())) {
      String key =
          server
              .bootstrapAdminKey()
              .orElseThrow(
                  () -> new IllegalStateException("the store is not empty: pass a fresh --db"));
      DeductionRpcBench bench = new DeductionRpcBench(server.grpcPort(), key, clients);
      try {
        System.out.printf(
            "DeductionAdminApi over gRPC: %d client threads, store %s, %d cores, Java %s%n%n",
            clients,
            db.replaceAll("(?i)password=[^&]*", "password=***"),
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version"));
        bench.run(records, seconds);
      } finally {
        bench.close();
      }
    }
  }

  private void run(int records, int seconds) throws Exception {
    // Warm-up: JIT, connections, statement caches; the records end up EXPIRED, outside the measured
    // list.
    Result warmCreates = calls(2_000, i -> stub(i).createDeduction(create("warm-up " + i)));
    calls(2_000, i -> stub(i).closeDeduction(DeductionReq.newBuilder().setId(i + 1).build()));
    report("warm-up CreateDeduction", warmCreates, 0);

    Result creates = calls(records, i -> stub(i).createDeduction(create("bench " + i)));
    report("CreateDeduction", creates, 0);

    DeductionReq all = DeductionReq.getDefaultInstance();
    int listed = stub(0).getDeductionList(all).getDataCount();
    if (listed != records) {
      throw new IllegalStateException("expected " + records + " NORMAL records, listed " + listed);
    }
    timed(Math.max(3, seconds / 3), i -> stub(i).getDeductionList(all)); // warm-up
    report(
        "GetDeductionList, " + listed + " records (page_size 0)",
        timed(seconds, i -> stub(i).getDeductionList(all)),
        listed);

    DeductionReq page = DeductionReq.newBuilder().setPageSize(100).build();
    timed(Math.max(3, seconds / 3), i -> stub(i).getDeductionList(page));
    report(
        "GetDeductionList, first page of 100",
        timed(seconds, i -> stub(i).getDeductionList(page)),
        100);
  }

  private DeductionAdminApiBlockingStub stub(int call) {
    return stubs.get(call % clients).withDeadlineAfter(60, TimeUnit.SECONDS);
  }

  private static DeductionReq create(String title) {
    return DeductionReq.newBuilder()
        .setTitle(title)
        .setDesc("benchmark record")
        .setPayMethodId(7)
        .build();
  }

  /** Latencies in nanoseconds and the wall time of one measured run. */
  @SuppressWarnings("ArrayRecordComponent") // its arrays are never compared
  private record Result(long[] latencies, long wallNanos) {}

  /** Exactly {@code total} calls spread over the client threads. */
  private Result calls(int total, Function<Integer, DeductionResp> call) throws Exception {
    AtomicInteger next = new AtomicInteger();
    return drive(
        () -> {
          int i = next.getAndIncrement();
          return i < total ? i : -1;
        },
        call);
  }

  /** As many calls as fit into {@code seconds}. */
  private Result timed(int seconds, Function<Integer, DeductionResp> call) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    AtomicInteger next = new AtomicInteger();
    return drive(() -> System.nanoTime() < end ? next.getAndIncrement() : -1, call);
  }

  private interface Ticket {
    int next();
  }

  private Result drive(Ticket tickets, Function<Integer, DeductionResp> call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<long[]>> futures = new ArrayList<>();
      long start = System.nanoTime();
      for (int t = 0; t < clients; t++) {
        futures.add(
            pool.submit(
                () -> {
                  long[] latencies = new long[1024];
                  int n = 0;
                  for (int i = tickets.next(); i >= 0; i = tickets.next()) {
                    long before = System.nanoTime();
                    DeductionResp r = call.apply(i);
                    long took = System.nanoTime() - before;
                    if (r.getCode() != 0) {
                      throw new IllegalStateException(
                          "call " + i + " answered code " + r.getCode() + ": " + r.getMessage());
                    }
                    if (n == latencies.length) {
                      latencies = Arrays.copyOf(latencies, n * 2);
                    }
                    latencies[n++] = took;
                  }
                  return Arrays.copyOf(latencies, n);
                }));
      }
      List<long[]> parts = new ArrayList<>();
      for (Future<long[]> f : futures) {
        parts.add(f.get());
      }
      long wall = System.nanoTime() - start;
      long[] all = parts.stream().flatMapToLong(Arrays::stream).toArray();
      Arrays.sort(all);
      return new Result(all, wall);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void report(String what, Result r, int recordsPerCall) {
    long calls = r.latencies().length;
    double perSecond = calls / (r.wallNanos() / 1e9);
    System.out.printf(
        "%-45s %8d calls in %6.2f s  %9.0f RPCs/s  p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms%s%n",
        what,
        calls,
        r.wallNanos() / 1e9,
        perSecond,
        millis(r, 0.50),
        millis(r, 0.99),
        millis(r, 1.0),
        recordsPerCall > 0 ? String.format("  (%.0f records/s)", perSecond * recordsPerCall) : "");
  }

  private static double millis(Result r, double quantile) {
    long[] sorted = r.latencies();
    int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
    return sorted[Math.max(0, index)] / 1e6;
  }

  private void close() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "usage: DeductionRpcBench [--clients N] [--records N] [--seconds S] [--db URL]; got "
                + args[i]);
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
