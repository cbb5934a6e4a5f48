package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.veil.sdk.internal.Transport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mapping cache against a fake server with 16 buckets and a test clock. */
class MappingCacheTest {
  private static final Instant START = Instant.parse("2026-03-01T12:00:00.250Z");

  @TempDir Path dir;
  private final TestClock clock = new TestClock(START);
  private final FakeVeil server = new FakeVeil(clock, 16);
  private final List<String> events = new ArrayList<>();
  private final MappingCache.Listener listener =
      new MappingCache.Listener() {
        @Override
        public void progress(long done, long total) {
          events.add("progress " + done + "/" + total);
        }

        @Override
        public void removed(Identifier identifier, MapOutcome.Reason reason) {
          events.add("removed " + identifier.value() + " " + reason);
        }
      };
  private final List<MappingCache> opened = new ArrayList<>();

  @AfterEach
  void closeAll() {
    opened.forEach(MappingCache::close);
  }

  private MappingCache open(VeilClient client) {
    MappingCache cache =
        client.mappingCache(dir.resolve("cache.db")).clock(clock).listener(listener).build();
    opened.add(cache);
    return cache;
  }

  private MappingCache open() {
    return open(server.client().build());
  }

  private static List<Identifier> emails(int from, int to) {
    return IntStream.range(from, to)
        .mapToObj(i -> Identifier.email("user" + i + "@example.com"))
        .toList();
  }

  private static Map<Identifier, CachedMapping> contents(MappingCache cache) {
    Map<Identifier, CachedMapping> all = new HashMap<>();
    cache.forEach(m -> assertThat(all.put(m.identifier(), m)).as("held once").isNull());
    return all;
  }

  @Test
  void anIdentifierLongerThanAnyValidOne_isRejected_recordedByItsFirstMebibyte_notThrown() {
    int max = dev.veil.sdk.internal.cache.MappingStore.MAX_VALUE_BYTES;
    String huge =
        "a".repeat(max - 1) + "\u00e9@example.com"; // the cut falls inside the two bytes of é
    MappingCache cache = open();

    assertThat(cache.add(List.of(Identifier.email("h0@example.com"), Identifier.email(huge))))
        .isEqualTo(new AddResult(1, 0, 1));
    cache.close();
    MappingCache reopened = open();
    List<Rejection> rejections = new ArrayList<>();
    reopened.forEachRejection(rejections::add);

    assertThat(reopened.size()).isEqualTo(1);
    assertThat(rejections)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.identifier()).isEqualTo(Identifier.email("a".repeat(max - 1)));
              assertThat(r.reason()).isEqualTo(MapOutcome.Reason.INVALID_IDENTIFIER);
            });
  }

  @Test
  void anIncompleteWriteAtTheEnd_isCutOffWhenOpened_andSaidHowLong() throws Exception {
    MappingCache cache = open();
    cache.add(emails(0, 10));
    cache.close();
    assertThat(open().recoveredTailBytes()).isZero();
    opened.forEach(MappingCache::close);
    java.nio.file.Files.write(
        dir.resolve("cache.db"),
        new byte[] {1, 2, 3, 4, 5, 6, 7},
        java.nio.file.StandardOpenOption.APPEND); // a frame's first bytes, as a crash leaves them

    MappingCache reopened = open();

    assertThat(reopened.recoveredTailBytes()).isEqualTo(7);
    assertThat(reopened.size()).isEqualTo(10);
  }

  @Test
  void aClosedCache_refusesPollingAndQuestions_sayingItIsClosed() {
    MappingCache cache = open();
    cache.close();

    assertThatThrownBy(cache::startPolling)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(cache::size)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(cache::pendingCount)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void add_thenMapPending_mapsEachIdentifierOnce_inBatchesGrowingFrom1000ToAtMost5000()
      throws Exception {
    MappingCache cache = open();
    List<Identifier> input = new ArrayList<>(emails(0, 12_000));
    input.addAll(emails(0, 100));
    input.add(Identifier.email("not an email"));

    AddResult added = cache.add(input);
    CacheReport report = cache.mapPending();

    assertThat(added).isEqualTo(new AddResult(12_000, 100, 1));
    assertThat(report.mapped()).isEqualTo(12_000);
    assertThat(report.remapped()).isZero();
    assertThat(server.mapBatches()).extracting(List::size).containsExactly(1000, 2000, 4000, 5000);
    assertThat(cache.size()).isEqualTo(12_000);
    assertThat(cache.pendingCount()).isZero();
    for (Identifier id : emails(0, 12_000)) {
      CachedMapping m = cache.get(id).orElseThrow();
      assertThat(m.advertisingId()).isEqualTo(server.advertisingIdOf(id));
      assertThat(m.bucketId()).isEqualTo(FakeVeil.bucketId(server.bucketOf(id)));
      assertThat(m.mappedAt()).isEqualTo(START);
      assertThat(m.stale()).isFalse();
    }
    List<Identifier> order = new ArrayList<>();
    cache.forEach(m -> order.add(m.identifier()));
    assertThat(order).isEqualTo(emails(0, 12_000));
    List<Rejection> rejected = new ArrayList<>();
    cache.forEachRejection(rejected::add);
    assertThat(rejected)
        .containsExactly(
            new Rejection(
                Identifier.email("not an email"), MapOutcome.Reason.INVALID_IDENTIFIER, START));
    assertThat(events)
        .containsExactly(
            "progress 1000/12000",
            "progress 3000/12000",
            "progress 7000/12000",
            "progress 12000/12000");
  }

  @Test
  void refresh_remapsExactlyTheEntriesWhoseBucketRotatedAfterTheyWereMapped() throws Exception {
    MappingCache cache = open();
    cache.add(emails(0, 2000));
    cache.mapPending();
    Map<Identifier, CachedMapping> before = contents(cache);
    clock.advance(Duration.ofHours(20));
    server.rotate(1, 3);
    clock.advance(Duration.ofMinutes(5));

    CacheReport report = cache.refresh();

    Map<Identifier, CachedMapping> after = contents(cache);
    long inRotated =
        before.keySet().stream()
            .filter(id -> server.bucketOf(id) == 1 || server.bucketOf(id) == 3)
            .count();
    assertThat(inRotated).isGreaterThan(100);
    assertThat(report.rotatedBuckets())
        .isEqualTo(16); // the first poll also lists the initial salts
    assertThat(report.markedStale()).isEqualTo(inRotated);
    assertThat(report.remapped()).isEqualTo(inRotated);
    assertThat(report.mapped()).isZero();
    for (Identifier id : before.keySet()) {
      boolean rotated = server.bucketOf(id) == 1 || server.bucketOf(id) == 3;
      assertThat(after.get(id).advertisingId()).isEqualTo(server.advertisingIdOf(id));
      assertThat(after.get(id).advertisingId().equals(before.get(id).advertisingId()))
          .isEqualTo(!rotated);
      assertThat(after.get(id).mappedAt()).isEqualTo(rotated ? clock.instant() : START);
    }
    assertThat(cache.lastPoll()).contains(clock.instant());
    assertThat(
            server
                .requests
                .get(server.requests.size() - (int) Math.ceil(inRotated / 5000.0) - 1)
                .pathAndQuery())
        .isEqualTo(
            "/v1/identity/buckets?since_timestamp="
                + START.minus(MappingCache.POLL_OVERLAP).getEpochSecond());

    clock.advance(Duration.ofMinutes(1));
    CacheReport again = cache.refresh();

    assertThat(again.rotatedBuckets()).isEqualTo(2); // the rotation is inside the overlap window
    assertThat(again.markedStale()).isZero();
    assertThat(again.sent()).isZero();
  }

  @Test
  void entriesMappedAfterTheRotation_areNotRemapped() {
    MappingCache cache = open();
    server.rotate(IntStream.range(0, 16).toArray());
    clock.advance(Duration.ofSeconds(2));
    cache.add(emails(0, 200));
    cache.mapPending();

    CacheReport report = cache.refresh();

    assertThat(report.rotatedBuckets()).isEqualTo(16);
    assertThat(report.markedStale()).isZero();
    assertThat(report.sent()).isZero();
  }

  @Test
  void optedOutIdentifiers_areRemovedAndReported_whenFirstMapped_andWhenRemapped() {
    MappingCache cache = open();
    Identifier early = Identifier.email("early@example.com");
    Identifier later = Identifier.email("later@example.com");
    server.optOut(early);
    cache.add(List.of(early, later));

    CacheReport first = cache.mapPending();
    server.optOut(later);
    clock.advance(Duration.ofSeconds(5));
    server.rotate(server.bucketOf(later));
    clock.advance(Duration.ofSeconds(5));
    CacheReport second = cache.refresh();

    assertThat(first.optedOut()).isEqualTo(1);
    assertThat(second.optedOut()).isEqualTo(1);
    assertThat(cache.get(early)).isEmpty();
    assertThat(cache.get(later)).isEmpty();
    assertThat(cache.size()).isZero();
    assertThat(events)
        .contains("removed early@example.com OPTED_OUT", "removed later@example.com OPTED_OUT");
    List<Rejection> rejected = new ArrayList<>();
    cache.forEachRejection(rejected::add);
    assertThat(rejected).extracting(Rejection::identifier).containsExactly(early, later);
  }

  @Test
  void byDefault_aRunWaitsOutTheKeysRateLimit_insteadOfStoppingAfterFourAttempts() {
    List<Duration> waits = new ArrayList<>();
    MappingCache cache = open(server.client().sleeper(waits::add).build());
    cache.add(emails(0, 10));
    for (int i = 0; i < 30; i++) {
      server.script.add(429);
    }

    CacheReport report = cache.mapPending();

    assertThat(report.mapped()).isEqualTo(10);
    assertThat(waits)
        .hasSize(30)
        .allSatisfy(w -> assertThat(w).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2)));
  }

  @Test
  void byDefault_aRunRidesOutARestart_onceTheServerHasAnswered_butNotAServerNeverReached() {
    MappingCache cache = open(server.client().build());
    for (int i = 0; i < 4; i++) {
      server.script.add(new java.net.ConnectException("refused (fake)"));
    }
    cache.add(emails(0, 10));
    assertThatThrownBy(cache::mapPending)
        .isInstanceOf(VeilTransportException.class); // never answered: said at once
    server.script.clear();
    cache.mapPending();
    cache.add(emails(10, 20));
    for (int i = 0; i < 12; i++) { // a restart: the port is closed for a while
      server.script.add(new java.net.ConnectException("refused (fake)"));
    }

    assertThat(cache.mapPending().mapped()).isEqualTo(10);
    assertThat(cache.pendingCount()).isZero();
  }

  @Test
  void aRetryPolicyGivenToTheClient_isTheCachesToo_andOneGivenToTheCacheWins() {
    MappingCache strict = open(server.client().retryPolicy(RetryPolicy.none()).build());
    strict.add(emails(0, 10));
    server.script.add(429);
    assertThatThrownBy(strict::mapPending)
        .isInstanceOfSatisfying(
            VeilApiException.class, e -> assertThat(e.httpStatus()).isEqualTo(429));
    strict.close();
    opened.clear();

    MappingCache patient =
        server
            .client()
            .retryPolicy(RetryPolicy.none())
            .build()
            .mappingCache(dir.resolve("cache.db"))
            .clock(clock)
            .retryPolicy(RetryPolicy.builder().maxAttempts(3).build())
            .build();
    opened.add(patient);
    server.script.add(503);
    server.script.add(503);
    assertThat(patient.mapPending().mapped()).isEqualTo(10);
  }

  @Test
  void anInterruptedRun_resumesAfterReopening_withoutLossOrDuplicates() throws Exception {
    VeilClient fragile = server.client().batchSize(1000).retryPolicy(RetryPolicy.none()).build();
    MappingCache cache = open(fragile);
    cache.add(emails(0, 5500));
    server.failMapAfter = 2;

    assertThatThrownBy(cache::mapPending).isInstanceOf(VeilTransportException.class);
    cache.close();
    opened.clear();
    server.failMapAfter = -1;
    MappingCache reopened = open(fragile);
    assertThat(reopened.pendingCount()).isEqualTo(3500);
    CacheReport report = reopened.mapPending();

    assertThat(report.mapped()).isEqualTo(3500);
    Map<Identifier, CachedMapping> all = contents(reopened);
    assertThat(all).hasSize(5500);
    all.forEach((id, m) -> assertThat(m.advertisingId()).isEqualTo(server.advertisingIdOf(id)));
    assertThat(server.mapRequestCount()).isEqualTo(2 + 4);
  }

  @Test
  void anInterruptedRefresh_keepsItsMarks_andTheNextRunFinishesThem() {
    VeilClient fragile = server.client().batchSize(100).retryPolicy(RetryPolicy.none()).build();
    MappingCache cache = open(fragile);
    cache.add(emails(0, 1600));
    cache.mapPending();
    clock.advance(Duration.ofSeconds(3));
    server.rotate(IntStream.range(0, 8).toArray());
    clock.advance(Duration.ofSeconds(3));
    server.failMapAfter = server.mapRequestCount() + 1;

    assertThatThrownBy(cache::refresh).isInstanceOf(VeilTransportException.class);
    long stale = cache.pendingCount();
    server.failMapAfter = -1;
    CacheReport resumed = cache.mapPending();

    assertThat(stale).isGreaterThan(500);
    assertThat(resumed.remapped()).isEqualTo(stale);
    contents(cache)
        .forEach((id, m) -> assertThat(m.advertisingId()).isEqualTo(server.advertisingIdOf(id)));
    assertThat(cache.refresh().markedStale()).isZero();
  }

  @Test
  void mapPendingWhile_mapsWhatAnotherThreadAddsMeanwhile_inFullBatches() throws Exception {
    MappingCache cache = open(server.client().batchSize(1000).build());
    AtomicBoolean adding = new AtomicBoolean(true);
    Thread producer =
        new Thread(
            () -> {
              for (int i = 0; i < 10; i++) {
                cache.add(emails(i * 450, (i + 1) * 450));
              }
              adding.set(false);
            });
    producer.start();

    CacheReport report = cache.mapPendingWhile(adding::get);
    producer.join();

    assertThat(report.mapped()).isEqualTo(4500);
    assertThat(cache.pendingCount()).isZero();
    assertThat(server.mapBatches())
        .extracting(List::size)
        .containsExactly(1000, 1000, 1000, 1000, 500);
    assertThat(events.get(events.size() - 1)).isEqualTo("progress 4500/4500");
  }

  @Test
  void hashIdentifiers_sendsHashes_butKeysEntriesByTheGivenIdentifier() throws Exception {
    MappingCache cache = open(server.client().hashIdentifiers(true).build());
    Identifier email = Identifier.email("Someone@Example.com");
    cache.add(List.of(email));

    cache.mapPending();

    assertThat(server.mapBatches().get(0)).containsExactly(email.hashed().value());
    assertThat(cache.get(email).orElseThrow().advertisingId())
        .isEqualTo(server.advertisingIdOf(email));
  }

  @Test
  void checkpoints_andPollTimes_surviveReopening() {
    MappingCache cache = open();
    cache.add(emails(0, 10), "input.csv", 10);
    cache.refresh();
    Instant polled = clock.instant();
    cache.close();
    opened.clear();

    MappingCache reopened = open();

    assertThat(reopened.checkpoint("input.csv")).hasValue(10);
    assertThat(reopened.checkpoint("other.csv")).isEmpty();
    assertThat(reopened.lastPoll()).contains(polled);
    assertThat(reopened.size()).isEqualTo(10);
  }

  @Test
  void theFile_isReadableByItsOwnerOnly() throws Exception {
    open();

    assertThat(
            PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("cache.db"))))
        .isEqualTo("rw-------");
  }

  @Test
  void startPolling_pollsAtOnceTheFirstTime_andKeepsTheCadenceAcrossRestarts() {
    CapturingScheduler scheduler = new CapturingScheduler();
    MappingCache cache =
        server
            .client()
            .build()
            .mappingCache(dir.resolve("cache.db"))
            .clock(clock)
            .scheduler(scheduler)
            .pollInterval(Duration.ofDays(1))
            .build();
    opened.add(cache);
    cache.startPolling();
    assertThat(scheduler.initialDelayMillis).isZero();
    assertThat(scheduler.periodMillis).isEqualTo(Duration.ofDays(1).toMillis());
    scheduler.task.run();
    assertThat(cache.lastPoll()).contains(START);
    cache.close();
    opened.clear();
    clock.advance(Duration.ofHours(6));

    MappingCache restarted =
        server
            .client()
            .build()
            .mappingCache(dir.resolve("cache.db"))
            .clock(clock)
            .scheduler(scheduler)
            .build();
    opened.add(restarted);
    restarted.startPolling();

    assertThat(scheduler.initialDelayMillis).isEqualTo(Duration.ofHours(18).toMillis());
    scheduler.shutdownNow();
  }

  @Test
  void close_stopsABackgroundPollUnderWay_atOnce_withoutReportingAFailure_andTheNextRunFinishesIt()
      throws Exception {
    for (boolean ownScheduler : new boolean[] {true, false}) {
      Path file = dir.resolve("poll-" + ownScheduler + ".cache");
      VeilClient quick = server.client().batchSize(1000).build();
      try (MappingCache setup = quick.mappingCache(file).clock(clock).build()) {
        setup.add(emails(0, 3000));
      }
      CountDownLatch secondBatchSent = new CountDownLatch(1);
      AtomicInteger maps = new AtomicInteger();
      Transport hanging =
          request -> {
            if (request.pathAndQuery().equals("/v1/identity/map") && maps.incrementAndGet() == 2) {
              secondBatchSent.countDown();
              new CountDownLatch(1).await(); // a server that does not answer, until interrupted
            }
            return server.send(request);
          };
      List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
      ScheduledThreadPoolExecutor given = new ScheduledThreadPoolExecutor(1);
      MappingCache.Builder builder =
          server
              .client()
              .batchSize(1000)
              .transport(hanging)
              .build()
              .mappingCache(file)
              .clock(clock)
              .listener(
                  new MappingCache.Listener() {
                    @Override
                    public void pollFailed(RuntimeException failure) {
                      failures.add(failure);
                    }
                  });
      MappingCache cache = (ownScheduler ? builder : builder.scheduler(given)).build();
      cache.startPolling();
      assertThat(secondBatchSent.await(10, TimeUnit.SECONDS)).isTrue();

      assertTimeoutPreemptively(Duration.ofSeconds(10), cache::close);

      given.shutdown();
      assertThat(given.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      assertThat(failures).as("own scheduler: " + ownScheduler).isEmpty();
      try (MappingCache reopened = quick.mappingCache(file).clock(clock).build()) {
        assertThat(reopened.pendingCount()).isEqualTo(2000);
        assertThat(reopened.mapPending().mapped()).isEqualTo(2000);
        assertThat(contents(reopened)).hasSize(3000);
      }
    }
  }

  @Test
  void aPollFailedListenerThatThrows_doesNotEndThePolling_andItsExceptionGoesToTheUncaughtHandler()
      throws Exception {
    List<Throwable> uncaught = new java.util.concurrent.CopyOnWriteArrayList<>();
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "test-poll");
              t.setUncaughtExceptionHandler((thread, e) -> uncaught.add(e));
              return t;
            });
    for (int i = 0; i < 100; i++) {
      server.script.add(503);
    }
    CountDownLatch threeFailures = new CountDownLatch(3);
    MappingCache cache =
        server
            .client()
            .retryPolicy(RetryPolicy.none())
            .build()
            .mappingCache(dir.resolve("cache.db"))
            .clock(clock)
            .scheduler(scheduler)
            .pollInterval(Duration.ofMillis(1))
            .listener(
                new MappingCache.Listener() {
                  @Override
                  public void pollFailed(RuntimeException failure) {
                    threeFailures.countDown();
                    throw new IllegalStateException("the listener's own failure");
                  }
                })
            .build();
    opened.add(cache);
    try {
      cache.startPolling();

      assertThat(threeFailures.await(10, TimeUnit.SECONDS))
          .as("polls after a throwing pollFailed")
          .isTrue();
      assertThat(uncaught)
          .isNotEmpty()
          .allSatisfy(
              e -> {
                assertThat(e).hasMessage("the listener's own failure");
                assertThat(e.getSuppressed()).singleElement().isInstanceOf(VeilApiException.class);
              });
    } finally {
      scheduler.shutdownNow();
    }
  }

  /** Records the scheduled task instead of running it. */
  private static final class CapturingScheduler extends ScheduledThreadPoolExecutor {
    Runnable task;
    long initialDelayMillis;
    long periodMillis;

    CapturingScheduler() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      task = command;
      initialDelayMillis = unit.toMillis(initialDelay);
      periodMillis = unit.toMillis(delay);
      return super.schedule(() -> {}, 1, TimeUnit.DAYS);
    }
  }
}
