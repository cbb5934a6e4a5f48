package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.e2e.FaultCluster.Node;
import dev.veil.e2e.FaultLoad.AckedClient;
import dev.veil.e2e.FaultLoad.AckedDeduction;
import dev.veil.e2e.FaultLoad.AckedOptOut;
import dev.veil.e2e.FaultLoad.Issued;
import dev.veil.e2e.FaultLoad.Propagation;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.testing.Await;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.Http;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.PrivatePostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code veil serve} processes on one PostgreSQL (a private server, so that restarting it
 * disturbs no other test) under a modest load ({@link FaultLoad}), while the scenario kills one
 * node with SIGKILL and restarts it, freezes another with SIGSTOP for a while, and stops PostgreSQL
 * like a crash and starts it again. Salt rotation runs every 5 s and keys rotate during the run, so
 * both jobs run while the faults happen.
 *
 * <p>Afterwards, on every node: every acknowledged opt-out answers {@code optout}, every client
 * created over admin gRPC authenticates, every acknowledged deduction is listed; no salt rotation
 * ran twice (the stored generations add up to the recorded runs plus the admin rotations); every
 * refresh token issued by any node refreshes on every node; and no read failed that a fault of its
 * own node does not explain (reads keep working while the database is down). The opt-out
 * propagation time, from the {@code 200} of {@code POST /v1/optout} on one node until another live
 * node answers {@code optout}, must stay within the 5 s of docs/spec.md 8 whenever neither the
 * observing node nor the database was disturbed; its p50 and maximum are printed and written to
 * {@code target/multi-node-fault-test.txt}. No other timing is asserted.
 */
class MultiNodeFaultIT {
  private static final Duration SPEC_PROPAGATION = Duration.ofSeconds(5);
  private static final List<String> SETTINGS =
      List.of(
          "salt.buckets=64",
          "salt.rotation-period=5s",
          "salt.daily-rotation-fraction=1/16",
          "jobs.interval=1s",
          "sync.interval=1s",
          "sync.max-staleness=20s",
          "keys.activation-delay=25s",
          "keys.rotation-period=40s",
          "db.timeout=3s");

  @TempDir Path temp;

  @Test
  @Timeout(value = 360, unit = TimeUnit.SECONDS)
  void threeNodes_underLoad_survive_sigkill_sigstop_andADatabaseRestart() throws Exception {
    long testStart = System.nanoTime();
    List<Path> dataDirs = List.of(temp.resolve("n1"), temp.resolve("n2"), temp.resolve("n3"));
    try (PrivatePostgres pg = PrivatePostgres.start();
        FaultCluster cluster = new FaultCluster(pg, dataDirs, SETTINGS)) {
      try {
        run(cluster, testStart);
      } catch (AssertionError | RuntimeException e) {
        System.out.println(cluster.outputs());
        System.out.println("---- PostgreSQL log\n" + pg.serverLog());
        throw e;
      }
    }
  }

  private void run(FaultCluster cluster, long testStart) throws Exception {
    Node n1 = cluster.node(0);
    Node n2 = cluster.node(1);
    Node n3 = cluster.node(2);
    cluster.start(n1); // the first node bootstraps the store and the admin key
    String adminKey = Files.readString(n1.dataDir.resolve("admin.key")).strip();
    cluster.start(n2);
    cluster.start(n3);
    String loadKey;
    try (IdentityAdminClient admin = new IdentityAdminClient(n1.grpcPort(), adminKey)) {
      loadKey = admin.createClient("fault-load", "GENERATOR", "MAPPER", "OPTOUT").getApiKey();
    }
    Await.until(
        Duration.ofSeconds(30),
        "every node to accept the load key",
        () ->
            cluster.nodes().stream()
                .allMatch(
                    n ->
                        n.http.get("/v1/identity/map?email=x%40load.test", loadKey).code() == 200));

    long loadStart = System.nanoTime();
    FaultLoad load = new FaultLoad(cluster, loadKey, adminKey);
    try (load) {
      load.start();
      underLoadFor(6_000);
      cluster.kill(n3);
      underLoadFor(4_000);
      cluster.restart(n3);
      underLoadFor(5_000);
      cluster.pause(n2);
      underLoadFor(8_000);
      cluster.resume(n2);
      underLoadFor(5_000);
      cluster.databaseDown();
      for (Node n : cluster.nodes()) {
        assertThat(n.http.get("/ops/readyz", null).code())
            .as("%s stays ready while the database is down", n)
            .isEqualTo(200);
      }
      underLoadFor(4_000);
      cluster.databaseUp();
      underLoadFor(8_000);
    }
    long loadSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - loadStart);
    List<Long> calm =
        load.propagation.stream()
            .filter(Propagation::calm)
            .map(Propagation::millis)
            .sorted()
            .toList();
    List<Long> all = load.propagation.stream().map(Propagation::millis).sorted().toList();
    System.out.println(propagationLine(calm)); // first, so that a failure below still shows it

    assertThat(load.unexplainedFailures).as("failures no fault explains").isEmpty();
    assertEveryNodeHasEveryOptOut(cluster, loadKey, load.optOuts);
    assertEveryNodeHasEveryClient(cluster, adminKey, load.clients);
    assertEveryNodeListsEveryDeduction(cluster, adminKey, load.deductions);
    SaltRuns runs =
        assertNoSaltRotationRanTwice(cluster, loadKey, load.adminRotatedBuckets.get(), loadSeconds);
    int refreshed = assertEveryTokenRefreshesOnEveryNode(cluster, load.issued);
    int rotatedKeys = assertKeysRotatedDuringTheRun(cluster, adminKey);

    long testSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - testStart);
    String report = report(calm, all, load, runs, refreshed, rotatedKeys, loadSeconds, testSeconds);
    System.out.println(report);
    Files.createDirectories(Path.of("target"));
    Files.writeString(
        Path.of("target", "multi-node-fault-test.txt"), report, StandardCharsets.UTF_8);

    assertThat(calm).as("propagation samples between live nodes").hasSizeGreaterThanOrEqualTo(20);
    assertThat(calm.get(calm.size() - 1))
        .as("slowest opt-out propagation between live nodes, ms (docs/spec.md 8: 5 s)")
        .isLessThanOrEqualTo(SPEC_PROPAGATION.toMillis());
  }

  private static void assertEveryNodeHasEveryOptOut(
      FaultCluster cluster, String key, List<AckedOptOut> optOuts) {
    List<String> emails = optOuts.stream().map(AckedOptOut::email).toList();
    assertThat(emails).as("acknowledged opt-outs").hasSizeGreaterThan(50);
    String batch =
        emails.stream()
            .map(e -> "\"" + e + "\"")
            .collect(Collectors.joining(",", "{\"email\":[", "]}"));
    for (Node n : cluster.nodes()) {
      // Converged within the propagation bound of the last write; the wait is only for slow
      // machines.
      awaitQuietly(Duration.ofSeconds(20), () -> optedOut(n, key, batch) == emails.size());
      assertThat(optedOut(n, key, batch))
          .as("acknowledged opt-outs %s answers optout for", n)
          .isEqualTo(emails.size());
    }
  }

  private static int optedOut(Node n, String key, String batch) {
    JsonNode body = n.http.post("/v1/identity/map", key, batch).successBody();
    int count = 0;
    for (JsonNode u : body.path("unmapped")) {
      if (u.path("reason").asText().equals("optout")) {
        count++;
      }
    }
    return count;
  }

  private static void assertEveryNodeHasEveryClient(
      FaultCluster cluster, String adminKey, List<AckedClient> clients)
      throws InterruptedException {
    assertThat(clients).as("clients created over admin gRPC").hasSizeGreaterThanOrEqualTo(5);
    Set<String> names = clients.stream().map(AckedClient::name).collect(Collectors.toSet());
    for (Node n : cluster.nodes()) {
      for (AckedClient c : clients) {
        assertThat(n.http.get("/v1/identity/map?email=c%40load.test", c.apiKey()).code())
            .as("client %s authenticates on %s", c.name(), n)
            .isEqualTo(200);
      }
      try (IdentityAdminClient admin = new IdentityAdminClient(n.grpcPort(), adminKey)) {
        Set<String> listed =
            admin.listClients().getClientsList().stream()
                .map(c -> c.getName())
                .collect(Collectors.toSet());
        assertThat(listed).as("clients listed by %s", n).containsAll(names);
      }
    }
  }

  private static void assertEveryNodeListsEveryDeduction(
      FaultCluster cluster, String adminKey, List<AckedDeduction> deductions)
      throws InterruptedException {
    assertThat(deductions).as("acknowledged deductions").hasSizeGreaterThanOrEqualTo(5);
    for (Node n : cluster.nodes()) {
      try (DeductionClient client = new DeductionClient(n.grpcPort(), adminKey)) {
        Set<Long> listed =
            client.listNormal().getDataList().stream()
                .map(DeductionStruct::getId)
                .map(Integer::toUnsignedLong)
                .collect(Collectors.toSet());
        for (AckedDeduction d : deductions) {
          assertThat(listed).as("deductions listed by %s", n).contains(d.id());
        }
      }
    }
  }

  record SaltRuns(int runs, long runBuckets, long generations) {}

  /**
   * Every applied rotation adds one to a bucket's generation, and a scheduled run records how many
   * buckets it rotated in the same transaction: the generations add up to the runs' buckets plus
   * the admin rotations exactly when nothing ran twice. Every node also shows the same buckets.
   */
  private static SaltRuns assertNoSaltRotationRanTwice(
      FaultCluster cluster, String key, int adminRotated, long loadSeconds) throws SQLException {
    SaltRuns runs;
    try (Connection c = cluster.database().connect();
        Statement s = c.createStatement();
        // One statement, one snapshot: rotation keeps running while the test reads.
        ResultSet rs =
            s.executeQuery(
                "SELECT (SELECT count(*) FROM salt_rotation_run),"
                    + " (SELECT coalesce(sum(buckets), 0) FROM salt_rotation_run),"
                    + " (SELECT coalesce(sum(generation), 0) FROM bucket_salt)")) {
      rs.next();
      runs = new SaltRuns(rs.getInt(1), rs.getLong(2), rs.getLong(3));
    }
    assertThat(runs.runs())
        .as("scheduled salt rotations during the run")
        .isPositive()
        .isLessThanOrEqualTo((int) (loadSeconds / 5 + 30));
    assertThat(runs.generations())
        .as("salt generations = scheduled runs' buckets + admin rotations")
        .isEqualTo(runs.runBuckets() + adminRotated);
    // Rotation keeps running every 5 s and a node learns a run within a second: the nodes agree
    // between runs. Compare the three views taken together until they do (a node that missed a
    // rotation would never agree again).
    List<List<Map<String, String>>> last = new ArrayList<>(List.of(List.of()));
    awaitQuietly(
        Duration.ofSeconds(30),
        () -> {
          last.set(0, cluster.nodes().stream().map(n -> buckets(n, key)).toList());
          return last.get(0).stream().distinct().count() == 1;
        });
    List<Map<String, String>> views = last.get(0);
    assertThat(views.get(0)).as("buckets").hasSize(64);
    for (int i = 1; i < views.size(); i++) {
      assertThat(views.get(i))
          .as("bucket ids and salt times on %s", cluster.node(i))
          .isEqualTo(views.get(0));
    }
    return runs;
  }

  /** Bucket id to the time its current salt took effect, as the node's buckets endpoint tells. */
  private static Map<String, String> buckets(Node n, String key) {
    Map<String, String> out = new TreeMap<>();
    for (JsonNode b : n.http.get("/v1/identity/buckets?since_timestamp=0", key).successBody()) {
      out.put(b.path("bucket_id").asText(), b.path("last_updated").asText());
    }
    return out;
  }

  private static int assertEveryTokenRefreshesOnEveryNode(
      FaultCluster cluster, List<Issued> issued) {
    assertThat(issued).as("tokens issued").hasSizeGreaterThan(30);
    List<Issued> sample = new ArrayList<>();
    int step = Math.max(1, issued.size() / 40);
    for (int i = 0; i < issued.size(); i += step) {
      sample.add(issued.get(i));
    }
    sample.add(issued.get(issued.size() - 1));
    int refreshed = 0;
    for (Issued t : sample) {
      for (Node n : cluster.nodes()) {
        Http.Response r =
            n.http.get("/v1/token/refresh?refresh_token=" + Http.encode(t.refreshToken()), null);
        assertThat(r.code())
            .as("token of %s issued by %s refreshed on %s: %s", t.email(), t.node(), n, r.body())
            .isEqualTo(200);
        assertThat(r.status()).isEqualTo("success");
        refreshed++;
      }
    }
    return refreshed;
  }

  private static int assertKeysRotatedDuringTheRun(FaultCluster cluster, String adminKey)
      throws InterruptedException {
    try (IdentityAdminClient admin =
        new IdentityAdminClient(cluster.node(0).grpcPort(), adminKey)) {
      long master =
          admin.listKeys().getKeysList().stream().filter(k -> k.getSiteId() == -1).count();
      assertThat(master)
          .as("master keys: the bootstrap key and its rotations")
          .isGreaterThanOrEqualTo(2);
      return (int) master - 1;
    }
  }

  private static String report(
      List<Long> calm,
      List<Long> all,
      FaultLoad load,
      SaltRuns runs,
      int refreshed,
      int rotatedKeys,
      long loadSeconds,
      long testSeconds) {
    return String.join(
        "\n",
        "multi-node fault test (MultiNodeFaultIT), " + Instant.now(),
        "setup: 3 veil serve processes on one private PostgreSQL; " + String.join(", ", SETTINGS),
        "faults: SIGKILL + restart of node-3, SIGSTOP of node-2 for 8 s, PostgreSQL stopped"
            + " (immediate) for 4 s",
        propagationLine(calm),
        "opt-out propagation, every sample (also across faults): n="
            + all.size()
            + " p50="
            + percentile(all, 50)
            + " ms p90="
            + percentile(all, 90)
            + " ms max="
            + percentile(all, 100)
            + " ms",
        "acknowledged: "
            + load.optOuts.size()
            + " opt-outs, "
            + load.clients.size()
            + " clients, "
            + load.deductions.size()
            + " deductions; "
            + load.reads.get()
            + " reads",
        "writes refused while the database was down: "
            + load.refusedWrites.get()
            + " (slowest answer "
            + load.slowestRefusalMillis.get()
            + " ms)",
        "salt: "
            + runs.runs()
            + " scheduled runs rotated "
            + runs.runBuckets()
            + " buckets, admin rotations "
            + load.adminRotatedBuckets.get()
            + "; stored generations "
            + runs.generations(),
        "keys: "
            + rotatedKeys
            + " master key rotations during the run; "
            + refreshed
            + " refreshes of tokens on every node",
        "load ran " + loadSeconds + " s; test took " + testSeconds + " s",
        "");
  }

  private static String propagationLine(List<Long> calm) {
    return "MULTI-NODE OPT-OUT PROPAGATION (live nodes, undisturbed): n="
        + calm.size()
        + " p50="
        + percentile(calm, 50)
        + " ms p90="
        + percentile(calm, 90)
        + " ms max="
        + percentile(calm, 100)
        + " ms (docs/spec.md 8: at most 5000 ms)";
  }

  private static long percentile(List<Long> sorted, int p) {
    if (sorted.isEmpty()) {
      return -1;
    }
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }

  private static void awaitQuietly(Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      sleepQuietly(100);
    }
  }

  /**
   * One phase of the fault schedule: the load keeps running through it. Its length is part of the
   * scenario (how long a node stays dead or paused, how long the database is down), not a wait for
   * a condition; every check after the schedule awaits its condition instead.
   */
  private static void underLoadFor(long millis) throws InterruptedException {
    Thread.sleep(millis);
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
