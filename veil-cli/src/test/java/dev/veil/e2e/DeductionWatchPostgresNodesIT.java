package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.grpc.deduction.v1.DeductionEvent;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.grpc.deduction.v1.ListDeductionsReq;
import dev.veil.storage.PostgresTestDatabase;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.DeductionWatcher;
import dev.veil.testing.ServerProcess;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code WatchDeductions} (docs/spec.md 6.1) on two {@code veil serve} processes sharing one
 * PostgreSQL: a watcher on each node while changes are made through both; the first node is killed
 * with SIGKILL mid-stream; its watcher reconnects to the other node with the last resume token it
 * received. Both watchers end with exactly the change log a fresh watcher reads from the start:
 * every change, in one order, none twice, none missing.
 */
class DeductionWatchPostgresNodesIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int RECORDS = 20;
  private static final int CHANGES = 160;

  @TempDir Path temp;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void twoNodes_sigkillOne_aWatcherResumingOnTheOtherMissesNothing() throws Exception {
    List<ManagedChannel> channels = new ArrayList<>();
    List<ServerProcess> nodes = new ArrayList<>();
    try (PostgresTestDatabase pg = PostgresTestDatabase.create()) {
      for (int i = 0; i < 2; i++) {
        nodes.add(
            ServerProcess.startOnPostgres(
                temp.resolve("n" + i), pg.url(), "deductions.watch-interval=100ms"));
      }
      String adminKey = Files.readString(temp.resolve("n0").resolve("admin.key")).strip();
      ManagedChannel toFirst = channel(channels, nodes.get(0).grpcPort());
      ManagedChannel toSecond = channel(channels, nodes.get(1).grpcPort());
      DeductionClient first = new DeductionClient(toFirst, adminKey);
      DeductionClient second = new DeductionClient(toSecond, adminKey);

      DeductionWatcher onFirst = DeductionWatcher.start(toFirst, adminKey, "");
      DeductionWatcher onSecond = DeductionWatcher.start(toSecond, adminKey, "");
      List<DeductionEvent> firstSeen = new ArrayList<>();
      Random random = new Random(20_261_129L);
      Map<Integer, Boolean> open = new HashMap<>();
      boolean killed = false;
      for (int i = 0; i < CHANGES; i++) {
        if (i == CHANGES / 2) {
          // Take what reached the first node's watcher, then kill that node under it.
          firstSeen.addAll(onFirst.take(1, WAIT));
          nodes.get(0).kill();
          killed = true;
          Status end = onFirst.awaitEnd(WAIT);
          assertThat(end.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          firstSeen.addAll(onFirst.drain());
        }
        DeductionClient through = killed || i % 2 == 1 ? second : first;
        try {
          if (i < RECORDS) {
            DeductionResp r = through.create("d" + i, "", i % 3, "");
            open.put(r.getData(0).getId(), true);
          } else {
            int id = 1 + random.nextInt(open.size());
            DeductionResp r = open.get(id) ? through.close(id) : through.open(id);
            assertThat(r.getCode()).as(r.getMessage()).isZero();
            open.put(id, r.getData(0).getStatus() == 0);
          }
        } catch (StatusRuntimeException e) {
          throw new AssertionError("change " + i + " failed: " + e.getStatus(), e);
        }
      }
      assertThat(firstSeen).as("events the first node's watcher saw before the kill").isNotEmpty();

      String lastToken = firstSeen.get(firstSeen.size() - 1).getResumeToken();
      DeductionWatcher resumed = DeductionWatcher.start(toSecond, adminKey, lastToken);
      long total = totalChanges(second);
      DeductionWatcher fresh = DeductionWatcher.start(toSecond, adminKey, "");
      List<DeductionEvent> log = fresh.take((int) total, WAIT);
      List<DeductionEvent> resumedSeen = new ArrayList<>(firstSeen);
      resumedSeen.addAll(resumed.take((int) total - firstSeen.size(), WAIT));
      List<DeductionEvent> secondSeen = onSecond.take((int) total, WAIT);

      assertThat(log).as("the log has one event per change").hasSize((int) total);
      assertEveryVersionOnceInOrder(log);
      assertThat(resumedSeen).as("resumed across the kill").isEqualTo(log);
      assertThat(secondSeen).as("on the surviving node").isEqualTo(log);
      assertThat(resumed.drain()).isEmpty();
      assertThat(onSecond.drain()).isEmpty();
      resumed.close();
      fresh.close();
      onSecond.close();
      first.close();
      second.close();
    } finally {
      for (ManagedChannel c : channels) {
        c.shutdownNow();
      }
      for (ServerProcess node : nodes) {
        node.close();
      }
    }
  }

  private static ManagedChannel channel(List<ManagedChannel> channels, int port) {
    ManagedChannel c = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    channels.add(c);
    return c;
  }

  /** The number of changes ever made: each record's version counts them (1 for its creation). */
  private static long totalChanges(DeductionClient client) {
    DeductionResp all = client.api().listDeductions(ListDeductionsReq.getDefaultInstance());
    assertThat(all.getCode()).isZero();
    assertThat(all.getDataCount()).isEqualTo(RECORDS);
    return all.getDataList().stream().mapToLong(DeductionStruct::getVersion).sum();
  }

  /** Each event as {@code id/version@xid:seq}, for a failure's message. */
  private static String positions(List<DeductionEvent> log) {
    StringBuilder b = new StringBuilder();
    for (DeductionEvent e : log) {
      String position =
          new String(Base64.getUrlDecoder().decode(e.getResumeToken()), StandardCharsets.US_ASCII);
      b.append(' ')
          .append(e.getDeduction().getId())
          .append('/')
          .append(e.getDeduction().getVersion())
          .append('@')
          .append(position.substring(position.indexOf(':') + 1));
    }
    return b.toString();
  }

  /** Each record's events carry versions 1, 2, 3, … in order: no change missing or repeated. */
  private static void assertEveryVersionOnceInOrder(List<DeductionEvent> log) {
    Map<Integer, Long> last = new HashMap<>();
    for (DeductionEvent e : log) {
      long expected = last.getOrDefault(e.getDeduction().getId(), 0L) + 1;
      assertThat(e.getDeduction().getVersion())
          .as("version of deduction %d in the log %s", e.getDeduction().getId(), positions(log))
          .isEqualTo(expected);
      last.put(e.getDeduction().getId(), expected);
    }
  }
}
