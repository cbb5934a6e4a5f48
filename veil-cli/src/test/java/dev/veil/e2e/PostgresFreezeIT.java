package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.Role;
import dev.veil.config.VeilConfig;
import dev.veil.grpc.deduction.v1.DeductionResp;
import dev.veil.grpc.deduction.v1.DeductionStruct;
import dev.veil.server.VeilServer;
import dev.veil.testing.Await;
import dev.veil.testing.DeductionClient;
import dev.veil.testing.Http;
import dev.veil.testing.IdentityAdminClient;
import dev.veil.testing.PrivatePostgres;
import dev.veil.testing.TestConfigs;
import io.grpc.StatusRuntimeException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * PostgreSQL frozen (SIGSTOP: its sockets stay open and nothing answers) under a steady load of
 * writes from many callers at once: more concurrent public opt-outs than the node has worker
 * threads, more concurrent admin writes (deductions, a client create) than the admin API has
 * workers. Every write, whatever stage it was in when the database froze (queued for a worker,
 * waiting for a pooled connection, checking one out, or inside a statement), is answered within
 * {@code db.timeout} plus a small margin: success if it committed before the freeze, else 503 /
 * deduction code 1 / UNAVAILABLE. Each caller retries a refused write; once the database is thawed
 * (SIGCONT) every retry succeeds, and a fresh node reading the store finds every write that was
 * ever answered with success.
 */
class PostgresFreezeIT {
  private static final Duration DB_TIMEOUT = Duration.ofSeconds(2);

  /**
   * Beyond db.timeout: the answer's way back, thread scheduling and garbage collection on a busy
   * two-core machine (answers up to 1.5 s late were seen there with a load average of 15). Without
   * the bound, writes in flight at the freeze were answered only when the database came back
   * ({@link #FROZEN_FOR}) or after db.timeout + 10 s.
   */
  private static final Duration MARGIN = Duration.ofSeconds(3);

  private static final Duration FROZEN_FOR = Duration.ofSeconds(8);

  /** More than Vert.x's 20 worker threads, which run the opt-out's store write. */
  private static final int OPT_OUT_CALLERS = 32;

  /** More than the admin API's 4 worker threads. */
  private static final int DEDUCTION_CALLERS = 6;

  private static final Duration PAUSE_AFTER_REFUSAL = Duration.ofMillis(100);

  /** One answered write: what was asked, how it was answered, when it was sent and answered. */
  record Call(
      String kind,
      String id,
      boolean succeeded,
      String answer,
      long sentNanos,
      long answeredNanos) {
    Duration took() {
      return Duration.ofNanos(answeredNanos - sentNanos);
    }
  }

  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
  private volatile boolean thawed;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void frozenDatabase_everyConcurrentWriteIsAnsweredWithinDbTimeout_andRetriesSucceedAfterThaw()
      throws Exception {
    try (PrivatePostgres pg = PrivatePostgres.start()) {
      VeilConfig config =
          TestConfigs.config(
              "db",
              pg.url(),
              "sync.interval",
              "200ms",
              "sync.max-staleness",
              "60s",
              "keys.activation-delay",
              "61s",
              "db.timeout",
              DB_TIMEOUT.toSeconds() + "s");
      String key;
      try (VeilServer node = VeilServer.start(config, Clock.systemUTC());
          IdentityAdminClient admin =
              new IdentityAdminClient(node.grpcPort(), node.bootstrapAdminKey().orElseThrow());
          DeductionClient deductions =
              new DeductionClient(node.grpcPort(), node.bootstrapAdminKey().orElseThrow())) {
        key =
            node.services()
                .clients()
                .create("intake", 0, Set.of(Role.OPTOUT, Role.MAPPER))
                .key()
                .reveal();
        Http http = new Http("http://127.0.0.1:" + node.httpPort(), HttpClient.Version.HTTP_1_1);
        ExecutorService callers =
            Executors.newFixedThreadPool(OPT_OUT_CALLERS + DEDUCTION_CALLERS + 1);
        List<Future<?>> running = new ArrayList<>();
        AtomicInteger next = new AtomicInteger();
        for (int i = 0; i < OPT_OUT_CALLERS; i++) {
          running.add(
              callers.submit(() -> retryUntilThawed(next, "optout", id -> optOut(http, key, id))));
        }
        for (int i = 0; i < DEDUCTION_CALLERS; i++) {
          running.add(
              callers.submit(
                  () -> retryUntilThawed(next, "deduction", id -> deduct(deductions, id))));
        }
        running.add(
            callers.submit(() -> retryUntilThawed(next, "client", id -> createClient(admin, id))));

        Await.until(
            Duration.ofSeconds(60),
            "writes to succeed before the freeze",
            () ->
                count("optout", true) >= 100
                    && count("deduction", true) >= 10
                    && count("client", true) >= 2);
        pg.freeze();
        long frozenAt = System.nanoTime();
        System.out.println(
            "PostgresFreezeIT: frozen at "
                + LocalTime.now(ZoneId.systemDefault())); // to compare with the node's log
        Thread.sleep(FROZEN_FOR.toMillis());
        long thawingAt = System.nanoTime();
        pg.thaw();
        thawed = true;
        for (Future<?> caller : running) {
          caller.get(60, TimeUnit.SECONDS); // each stops once its write succeeded after the thaw
        }
        callers.shutdown();

        report(frozenAt);
        List<Call> afterFreeze =
            calls.stream().filter(c -> c.answeredNanos() - frozenAt > 0).toList();
        assertThat(afterFreeze)
            .as(
                "every write in flight or sent after the freeze, answered within db.timeout + %s",
                MARGIN)
            .allSatisfy(
                c -> assertThat(c.took()).as("%s", c).isLessThanOrEqualTo(DB_TIMEOUT.plus(MARGIN)));
        List<Call> duringFreeze =
            calls.stream()
                .filter(c -> c.sentNanos() - frozenAt > 0 && thawingAt - c.answeredNanos() > 0)
                .toList();
        assertThat(duringFreeze).as("refused while frozen").noneMatch(Call::succeeded);
        assertThat(duringFreeze.stream().map(Call::kind).distinct())
            .containsExactlyInAnyOrder("optout", "deduction", "client");
        assertThat(calls)
            .filteredOn(c -> !c.succeeded())
            .allSatisfy(
                c ->
                    assertThat(c.answer())
                        .isIn(
                            "503 Store unavailable, try again later",
                            "code 1 storage unavailable",
                            "UNAVAILABLE"));
        assertThat(http.get("/ops/readyz", null).code()).isEqualTo(200);
        assertThat(http.post("/v1/optout", key, "{\"email\":\"after-thaw@example.com\"}").code())
            .isEqualTo(200);

        Map<String, Long> titles =
            deductions.listNormal().getDataList().stream()
                .collect(Collectors.groupingBy(DeductionStruct::getTitle, Collectors.counting()));
        assertThat(succeeded("deduction"))
            .as("every deduction answered with success, once each")
            .allSatisfy(id -> assertThat(titles.get(id)).as(id).isEqualTo(1L));
      }
      assertEveryAnsweredOptOutIsStored(config, key);
    }
  }

  /**
   * A caller: writes {@code id}s one after another, retrying a refused one (after a pause) until it
   * succeeds; stops at its first success after the thaw.
   */
  private void retryUntilThawed(AtomicInteger next, String kind, Function<String, String> write) {
    String id = kind + "-" + next.getAndIncrement();
    while (true) {
      boolean afterThaw = thawed;
      long sent = System.nanoTime();
      String answer = write.apply(id);
      boolean succeeded = answer.equals("ok");
      calls.add(new Call(kind, id, succeeded, answer, sent, System.nanoTime()));
      if (succeeded && afterThaw) {
        return;
      }
      if (succeeded) {
        id = kind + "-" + next.getAndIncrement();
      } else {
        sleep(PAUSE_AFTER_REFUSAL);
      }
    }
  }

  private static String optOut(Http http, String key, String id) {
    Http.Response r = http.post("/v1/optout", key, "{\"email\":\"" + id + "@example.com\"}");
    return r.code() == 200 ? "ok" : r.code() + " " + r.message();
  }

  private static String deduct(DeductionClient deductions, String id) {
    DeductionResp r = deductions.create(id, "", 1, id);
    return r.getCode() == 0 ? "ok" : "code " + r.getCode() + " " + r.getMessage();
  }

  private static String createClient(IdentityAdminClient admin, String id) {
    try {
      admin.createClient(id, "MAPPER");
      return "ok";
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getDescription())
          .as("%s", e.getStatus())
          .contains("storage unavailable");
      return e.getStatus().getCode().name();
    }
  }

  private long count(String kind, boolean succeeded) {
    return calls.stream().filter(c -> c.kind().equals(kind) && c.succeeded() == succeeded).count();
  }

  private List<String> succeeded(String kind) {
    return calls.stream()
        .filter(c -> c.kind().equals(kind) && c.succeeded())
        .map(Call::id)
        .toList();
  }

  private void report(long frozenAt) {
    for (String kind : List.of("optout", "deduction", "client")) {
      List<Call> refused =
          calls.stream().filter(c -> c.kind().equals(kind) && !c.succeeded()).toList();
      Call slowest =
          calls.stream()
              .filter(c -> c.kind().equals(kind) && c.answeredNanos() - frozenAt > 0)
              .max(Comparator.comparing(Call::took))
              .orElseThrow();
      System.out.printf(
          "PostgresFreezeIT: %s: %d answered with success, %d refused; slowest answer after the"
              + " freeze began %d ms (db.timeout %d ms), sent %d ms after the freeze: %s%n",
          kind,
          count(kind, true),
          refused.size(),
          slowest.took().toMillis(),
          DB_TIMEOUT.toMillis(),
          (slowest.sentNanos() - frozenAt) / 1_000_000,
          slowest.answer());
    }
  }

  /**
   * A new node loads the store into memory: every opt-out ever answered with success is in force.
   */
  private void assertEveryAnsweredOptOutIsStored(VeilConfig config, String key) {
    List<String> emails = succeeded("optout").stream().map(id -> id + "@example.com").toList();
    try (VeilServer fresh = VeilServer.start(config, Clock.systemUTC())) {
      Http http = new Http("http://127.0.0.1:" + fresh.httpPort());
      String body =
          emails.stream()
              .map(e -> "\"" + e + "\"")
              .collect(Collectors.joining(",", "{\"email\":[", "]}"));
      Http.Response r = http.post("/v1/identity/map", key, body);
      assertThat(r.code()).isEqualTo(200);
      for (String email : emails) {
        assertThat(r.body()).contains("{\"identifier\":\"" + email + "\",\"reason\":\"optout\"}");
      }
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
