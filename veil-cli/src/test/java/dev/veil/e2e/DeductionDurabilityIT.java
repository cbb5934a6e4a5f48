package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.ServerProcess;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/spec.md 8 for deductions: what the server acknowledged survives SIGKILL. Four clients
 * create, open and close their own records while the server is killed with {@code kill -9}; after a
 * restart every acknowledged create exists and every record shows the status of its last
 * acknowledged change, or of the one change that was in flight at the kill (which may or may not
 * have landed).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DeductionDurabilityIT {
  private static final int CLIENTS = 4;
  private static final int ACKNOWLEDGED_BEFORE_KILL = 300;

  @TempDir Path dataDir;

  /** What one client knows about one of its records. Guarded by the client's thread. */
  static final class Known {
    final String requestId;
    long id;
    boolean createAcknowledged;
    int lastAcknowledgedStatus;
    Integer inFlightStatus;

    Known(String requestId) {
      this.requestId = requestId;
    }
  }

  @Test
  void acknowledgedCreatesOpensAndCloses_surviveSigkill() throws Exception {
    Map<String, Known> records = new ConcurrentHashMap<>();
    Queue<String> unexpected = new ConcurrentLinkedQueue<>();
    String adminKey;
    try (ServerProcess server = ServerProcess.start(dataDir, "--set", "salt.buckets=64")) {
      adminKey = Files.readString(dataDir.resolve("admin.key")).strip();
      CountDownLatch enough = new CountDownLatch(ACKNOWLEDGED_BEFORE_KILL);
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        pool.execute(() -> work(client, server.grpcPort(), adminKey, records, enough, unexpected));
      }
      assertThat(enough.await(120, TimeUnit.SECONDS))
          .as(
              "%d acknowledged calls before the kill; unexpected answers: %s",
              ACKNOWLEDGED_BEFORE_KILL, unexpected)
          .isTrue();
      server.kill();
      pool.shutdown();
      assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(unexpected).as("answers other than success before the kill").isEmpty();

    try (ServerProcess server = ServerProcess.start(dataDir, "--set", "salt.buckets=64");
        DeductionClient api = new DeductionClient(server.grpcPort(), adminKey)) {
      Map<Long, DeductionStruct> stored = new HashMap<>();
      for (DeductionResp list : List.of(api.listNormal(), api.listExpired())) {
        assertThat(list.getCode()).isZero();
        list.getDataList()
            .forEach(d -> assertThat(stored.put(Integer.toUnsignedLong(d.getId()), d)).isNull());
      }
      int acknowledgedCreates = 0;
      int inFlightCreatesThatLanded = 0;
      for (Known k : records.values()) {
        if (k.createAcknowledged) {
          acknowledgedCreates++;
          DeductionStruct d = stored.get(k.id);
          assertThat(d).as("acknowledged create %s", k.requestId).isNotNull();
          assertThat(d.getTitle()).isEqualTo(k.requestId);
          assertThat(d.getDesc()).isEqualTo("desc of " + k.requestId);
          if (k.inFlightStatus == null) {
            assertThat(d.getStatus()).as(k.requestId).isEqualTo(k.lastAcknowledgedStatus);
          } else {
            assertThat(d.getStatus())
                .as(k.requestId)
                .isIn(k.lastAcknowledgedStatus, k.inFlightStatus);
          }
        } else {
          // The create was in flight at the kill: a retry with its request id is safe either way.
          boolean landed = stored.values().stream().anyMatch(d -> d.getTitle().equals(k.requestId));
          DeductionResp retry = api.create(k.requestId, "desc of " + k.requestId, 0, k.requestId);
          assertThat(retry.getCode()).isZero();
          if (landed) {
            inFlightCreatesThatLanded++;
            assertThat(stored).containsKey(Integer.toUnsignedLong(retry.getData(0).getId()));
          }
        }
      }
      assertThat(acknowledgedCreates).isPositive();
      assertThat(stored).hasSize(acknowledgedCreates + inFlightCreatesThatLanded);
      System.out.printf(
          "DeductionDurabilityIT: %d records, %d acknowledged creates, %d in-flight creates"
              + " landed%n",
          stored.size(), acknowledgedCreates, inFlightCreatesThatLanded);
    }
  }

  /** One client: creates records and changes their status until the server dies. */
  private static void work(
      int client,
      int port,
      String key,
      Map<String, Known> records,
      CountDownLatch enough,
      Queue<String> unexpected) {
    Random random = new Random(client);
    List<Known> mine = new ArrayList<>();
    try (DeductionClient api = new DeductionClient(port, key)) {
      for (int n = 0; ; n++) {
        if (mine.isEmpty() || random.nextInt(4) == 0) {
          Known k = new Known("c" + client + "-" + n);
          records.put(k.requestId, k);
          DeductionResp r = api.create(k.requestId, "desc of " + k.requestId, 0, k.requestId);
          if (r.getCode() != 0) {
            unexpected.add(r.toString());
            return;
          }
          k.id = Integer.toUnsignedLong(r.getData(0).getId());
          k.createAcknowledged = true;
          k.lastAcknowledgedStatus = 0;
          mine.add(k);
        } else {
          Known k = mine.get(random.nextInt(mine.size()));
          int target = random.nextInt(2);
          k.inFlightStatus = target;
          DeductionResp r = target == 0 ? api.open(k.id) : api.close(k.id);
          if (r.getCode() != 0) {
            unexpected.add(r.toString());
            return;
          }
          k.lastAcknowledgedStatus = target;
          k.inFlightStatus = null;
        }
        enough.countDown();
      }
    } catch (StatusRuntimeException killed) {
      // The server died: the call in flight was not acknowledged and stays marked as such.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
