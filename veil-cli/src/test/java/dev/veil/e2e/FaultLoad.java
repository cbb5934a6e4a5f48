package dev.veil.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.e2e.FaultCluster.Node;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.identity.admin.v1.CreateClientResponse;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.Http;
import dev.veil.testing.IdentityAdminClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * The load of {@link MultiNodeFaultIT}, on a few threads, always at a node that is up:
 *
 * <ul>
 *   <li>opt-outs (about 6/s), each followed by a probe that asks another live node for that
 *       identity until it answers {@code optout}: the propagation time;
 *   <li>token generates (kept, to refresh on every node at the end), refreshes and maps;
 *   <li>admin writes over gRPC: a client about every 2.5 s, a deduction with a request id, and now
 *       and then an admin salt rotation.
 * </ul>
 *
 * It records what was acknowledged (the test checks every node has it) and what was refused, and
 * every failed read that no fault explains. Modest on purpose: the machine has two cores.
 */
final class FaultLoad implements AutoCloseable {
  record AckedOptOut(String email, Node node, long ackNanos) {}

  record Propagation(long millis, Node from, Node to, boolean calm) {}

  record Issued(Node node, String email, String refreshToken) {}

  record AckedClient(String name, String apiKey) {}

  record AckedDeduction(long id, String title) {}

  private static final long PROBE_GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(20);

  private final FaultCluster cluster;
  private final String loadKey;
  private final String adminKey;
  private final ExecutorService workers = Executors.newFixedThreadPool(3);
  private final ExecutorService probes = Executors.newFixedThreadPool(6);
  private volatile boolean running = true;

  final List<AckedOptOut> optOuts = Collections.synchronizedList(new ArrayList<>());
  final List<Propagation> propagation = Collections.synchronizedList(new ArrayList<>());
  final List<Issued> issued = Collections.synchronizedList(new ArrayList<>());
  final List<AckedClient> clients = Collections.synchronizedList(new ArrayList<>());
  final List<AckedDeduction> deductions = Collections.synchronizedList(new ArrayList<>());
  final List<String> unexplainedFailures = Collections.synchronizedList(new ArrayList<>());
  final AtomicInteger refusedWrites = new AtomicInteger();
  final AtomicLong slowestRefusalMillis = new AtomicLong();
  final AtomicInteger adminRotatedBuckets = new AtomicInteger();
  final AtomicInteger reads = new AtomicInteger();

  /**
   * {@code loadKey}: a client with GENERATOR, MAPPER and OPTOUT; {@code adminKey}: an ADMIN client.
   */
  FaultLoad(FaultCluster cluster, String loadKey, String adminKey) {
    this.cluster = cluster;
    this.loadKey = loadKey;
    this.adminKey = adminKey;
  }

  void start() {
    workers.execute(() -> loop(1, 150, this::optOutOnce));
    workers.execute(() -> loop(2, 120, this::tokensOnce));
    workers.execute(() -> loop(3, 1_250, this::adminOnce));
  }

  private void loop(long seed, long pauseMillis, IntConsumer step) {
    Random random = new Random(seed);
    int i = 0;
    while (running) {
      try {
        step.accept(i++);
      } catch (RuntimeException e) {
        unexplainedFailures.add("load step failed: " + e);
      }
      sleep(pauseMillis + random.nextInt(50));
    }
  }

  // ---- opt-outs and their propagation --------------------------------------------------------

  private final Random optOutRandom = new Random(11);

  private void optOutOnce(int i) {
    Optional<Node> target = cluster.anyUp(optOutRandom);
    if (target.isEmpty()) {
      return;
    }
    Node node = target.get();
    String email = "optout-" + i + "@load.test";
    long sent = System.nanoTime();
    Http.Response r;
    try {
      r = node.http.post("/v1/optout", loadKey, "{\"email\":\"" + email + "\"}");
    } catch (UncheckedIOException | IllegalStateException e) {
      explainOrRecord(node, sent, "opt-out at " + node + " failed: " + e);
      return;
    }
    long acked = System.nanoTime();
    if (r.code() == 200) {
      optOuts.add(new AckedOptOut(email, node, acked));
      cluster
          .anyUpExcept(node, optOutRandom)
          .ifPresent(observer -> probes.execute(() -> probe(email, node, observer, acked)));
    } else if (r.code() == 503) {
      refused(sent, acked);
      if (!cluster.storeFault(node, sent, acked)) {
        unexplainedFailures.add(
            "opt-out refused by " + node + " while it and the database were up: " + r.body());
      }
    } else {
      unexplainedFailures.add("opt-out at " + node + " answered " + r.code() + " " + r.body());
    }
  }

  private void probe(String email, Node from, Node to, long acked) {
    String path = "/v1/identity/map?email=" + Http.encode(email);
    while (System.nanoTime() - acked < PROBE_GIVE_UP_NANOS) {
      try {
        if (to.http.get(path, loadKey).body().contains("\"optout\"")) {
          long seen = System.nanoTime();
          propagation.add(
              new Propagation(
                  (seen - acked) / 1_000_000, from, to, !cluster.disturbed(to, acked, seen)));
          return;
        }
      } catch (UncheckedIOException | IllegalStateException e) {
        return; // the observer was killed meanwhile: no sample
      }
      sleep(25);
    }
    propagation.add(
        new Propagation(
            PROBE_GIVE_UP_NANOS / 1_000_000,
            from,
            to,
            !cluster.disturbed(to, acked, System.nanoTime())));
  }

  // ---- tokens and reads ------------------------------------------------------------------------

  private final Random tokenRandom = new Random(22);

  private void tokensOnce(int i) {
    Optional<Node> target = cluster.anyUp(tokenRandom);
    if (target.isEmpty()) {
      return;
    }
    Node node = target.get();
    String email = "token-" + i + "@load.test";
    read(
        node,
        () -> {
          Http.Response r =
              node.http.get("/v1/token/generate?email=" + Http.encode(email), loadKey);
          if (r.code() == 200) {
            JsonNode body = r.json().path("body");
            issued.add(new Issued(node, email, body.path("refresh_token").asText()));
          }
          return r;
        });
    if (i % 2 == 0 && !issued.isEmpty()) {
      Issued earlier = issued.get(tokenRandom.nextInt(issued.size()));
      read(
          node,
          () ->
              node.http.get(
                  "/v1/token/refresh?refresh_token=" + Http.encode(earlier.refreshToken()), null));
    }
    read(
        node,
        () ->
            node.http.get(
                "/v1/identity/map?email=" + Http.encode("map-" + i + "@load.test"), loadKey));
    if (i % 5 == 0) {
      read(
          node,
          () ->
              node.http.post(
                  "/v1/identity/map",
                  loadKey,
                  "{\"email\":[\"a"
                      + i
                      + "@load.test\",\"b"
                      + i
                      + "@load.test\",\"c"
                      + i
                      + "@load.test\"]}"));
      read(node, () -> node.http.get("/v1/identity/buckets?since_timestamp=0", loadKey));
    }
  }

  /** A read must succeed on a live node, whatever the database does. */
  private void read(Node node, Supplier<Http.Response> call) {
    long sent = System.nanoTime();
    try {
      Http.Response r = call.get();
      reads.incrementAndGet();
      if (r.code() != 200 && !cluster.nodeFault(node, sent, System.nanoTime())) {
        unexplainedFailures.add("read at " + node + " answered " + r.code() + " " + r.body());
      }
    } catch (UncheckedIOException | IllegalStateException e) {
      explainOrRecord(node, sent, "read at " + node + " failed: " + e);
    }
  }

  // ---- admin writes over gRPC ------------------------------------------------------------------

  private final Random adminRandom = new Random(33);

  private void adminOnce(int i) {
    Optional<Node> target = cluster.anyUp(adminRandom);
    if (target.isEmpty()) {
      return;
    }
    Node node = target.get();
    long sent = System.nanoTime();
    try (IdentityAdminClient admin = new IdentityAdminClient(node.grpcPort(), adminKey)) {
      if (i % 2 == 0) {
        String name = "fault-client-" + i;
        CreateClientResponse created = admin.createClient(name, "GENERATOR", "MAPPER");
        clients.add(new AckedClient(name, created.getApiKey()));
      } else if (i % 8 == 3) {
        adminRotatedBuckets.addAndGet(admin.rotateSalts(1.0 / 64).getRotatedBuckets());
      }
    } catch (StatusRuntimeException e) {
      adminRefusal(node, sent, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (i % 2 == 1) {
      deduction(node, i);
    }
  }

  private void deduction(Node node, int i) {
    long sent = System.nanoTime();
    try (DeductionClient client = new DeductionClient(node.grpcPort(), adminKey)) {
      String title = "fault deduction " + i;
      DeductionResp r = client.create(title, "", 1, "fault-" + i);
      if (r.getCode() == 0) {
        deductions.add(new AckedDeduction(r.getData(0).getId(), title));
      } else if (r.getCode() == 1) {
        refused(sent, System.nanoTime());
        if (!cluster.storeFault(node, sent, System.nanoTime())) {
          unexplainedFailures.add(
              "deduction refused by " + node + " while it and the database were up");
        }
      } else {
        unexplainedFailures.add(
            "deduction at " + node + " answered code " + r.getCode() + " " + r.getMessage());
      }
    } catch (StatusRuntimeException e) {
      adminRefusal(node, sent, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * An admin call that failed: a refusal while the database was down, or explained by another fault
   * (the node was killed; a paused node held a row this call waited for until the statement
   * timeout); anything else is recorded.
   */
  private void adminRefusal(Node node, long sent, StatusRuntimeException e) {
    long now = System.nanoTime();
    if (e.getStatus().getCode() == Status.Code.UNAVAILABLE && cluster.databaseFault(sent, now)) {
      refused(sent, now);
    } else if (!cluster.anyFault(sent, now)) {
      unexplainedFailures.add("admin call at " + node + " failed: " + e.getStatus());
    }
  }

  // ---- bookkeeping -----------------------------------------------------------------------------

  private void refused(long sent, long answered) {
    refusedWrites.incrementAndGet();
    slowestRefusalMillis.accumulateAndGet((answered - sent) / 1_000_000, Math::max);
  }

  /** Records a failure (no answer at all) unless a fault of that node overlapped the call. */
  private void explainOrRecord(Node node, long sent, String what) {
    if (!cluster.nodeFault(node, sent, System.nanoTime())) {
      unexplainedFailures.add(what);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the load and waits for the probes still running (each gives up after 20 s). */
  @Override
  public void close() throws InterruptedException {
    running = false;
    workers.shutdown();
    workers.awaitTermination(60, TimeUnit.SECONDS);
    probes.shutdown();
    probes.awaitTermination(60, TimeUnit.SECONDS);
  }
}
