package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.identity.IdentityInput;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mapping cache as a bulk import uses it: several requests in flight, adds that do not wait for
 * the disk, and the table written out (as objects or CSV) while the run maps it.
 */
class MappingCacheImportTest {
  private static final Instant START = Instant.parse("2026-03-01T12:00:00.250Z");

  @TempDir Path dir;
  private final TestClock clock = new TestClock(START);
  private final FakeVeil server = new FakeVeil(clock, 16);
  private final List<MappingCache> opened = new ArrayList<>();

  @AfterEach
  void closeAll() {
    opened.forEach(MappingCache::close);
  }

  private MappingCache open(VeilClient client, int inFlight) {
    MappingCache cache =
        client
            .mappingCache(dir.resolve("cache.db"))
            .clock(clock)
            .requestsInFlight(inFlight)
            .build();
    opened.add(cache);
    return cache;
  }

  private static List<Identifier> emails(int from, int to) {
    return IntStream.range(from, to)
        .mapToObj(i -> Identifier.email("user" + i + "@example.com"))
        .toList();
  }

  private static IdentifierBatch batch(List<Identifier> ids) {
    IdentifierBatch batch = new IdentifierBatch(ids.size());
    ids.forEach(batch::add);
    return batch;
  }

  private static List<String> values(List<Identifier> ids) {
    return ids.stream().map(Identifier::value).toList();
  }

  @Test
  void aBatchOfBytes_isAddedExactlyAsTheSameIdentifiersInAList() throws Exception {
    List<Identifier> ids = new ArrayList<>(emails(0, 50));
    ids.add(Identifier.email("user7@example.com")); // held already
    ids.add(Identifier.email("not an email"));
    ids.add(Identifier.email("  Spaced@Example.com ")); // valid, kept exactly as given
    ids.add(Identifier.email("üñí@example.com"));
    ids.add(Identifier.email("broken\uD800@example.com")); // an unpaired surrogate: no UTF-8 form
    ids.add(Identifier.phone("+12025550123"));
    ids.add(Identifier.emailHash("tMmiiTI7IaAcPpQPFQ65uMVCWH8av9jw4cwf/F5HVRQ="));
    IdentifierBatch batch = new IdentifierBatch(4);
    for (Identifier id : ids) {
      if (id.value().chars().allMatch(c -> c < 0x80)) {
        byte[] utf8 = ("<" + id.value() + ">").getBytes(StandardCharsets.UTF_8);
        batch.addUtf8(id.kind(), utf8, 1, utf8.length - 2);
      } else {
        batch.add(id);
      }
    }
    MappingCache byBatch = open(server.client().build(), 1);

    AddResult result = byBatch.addBuffered(batch, "input", 57);

    assertThat(result).isEqualTo(new AddResult(54, 1, 2));
    assertThat(byBatch.checkpoint("input")).hasValue(57);
    List<String> rejected = new ArrayList<>();
    byBatch.forEachRejection(r -> rejected.add(r.identifier().value()));
    assertThat(rejected).hasSize(2).contains("not an email");
    byBatch.mapPending();
    Map<String, String> mapped = new HashMap<>();
    byBatch.forEach(m -> mapped.put(m.identifier().value(), m.advertisingId()));
    assertThat(mapped)
        .hasSize(54)
        .containsKeys("  Spaced@Example.com ", "üñí@example.com", "+12025550123");
    batch.clear();
    assertThat(batch.isEmpty()).isTrue();
    assertThat(byBatch.add(batch, "input", 58)).isEqualTo(new AddResult(0, 0, 0));
    assertThat(byBatch.checkpoint("input")).hasValue(58);
  }

  @Test
  void reserve_keepsWhatIsHeld_andAnyHintIsSafe() {
    MappingCache cache = open(server.client().build(), 1);
    assertThat(cache.add(emails(0, 300))).isEqualTo(new AddResult(300, 0, 0));

    cache.reserve(100_000);
    cache.reserve(-5);
    cache.reserve(Long.MAX_VALUE); // capped: never more than a share of the heap

    assertThat(cache.add(emails(0, 400))).isEqualTo(new AddResult(100, 300, 0));
    assertThat(cache.add(emails(399, 20_000))).isEqualTo(new AddResult(19_600, 1, 0));
    assertThat(cache.size()).isEqualTo(20_000);
  }

  @Test
  void aBatch_refusesBytesThatAreNotUtf8() {
    IdentifierBatch batch = new IdentifierBatch();
    byte[] bad = {'a', (byte) 0xC3, '@', 'x'};

    assertThatThrownBy(() -> batch.addUtf8(IdentityInput.EMAIL, bad, 0, bad.length))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UTF-8");
    assertThat(batch.size()).isZero();
  }

  @Test
  void twoRequestsInFlight_mapEveryEntryOnce() throws Exception {
    MappingCache cache = open(server.client().batchSize(1000).build(), 2);
    cache.add(emails(0, 12_000));

    CacheReport report = cache.mapPending();

    assertThat(report.mapped()).isEqualTo(12_000);
    assertThat(cache.pendingCount()).isZero();
    List<String> sent = new ArrayList<>();
    server.mapBatches().forEach(sent::addAll);
    assertThat(server.mapBatches()).hasSize(12);
    assertThat(sent).containsExactlyInAnyOrderElementsOf(values(emails(0, 12_000)));
    cache.forEach(
        m -> assertThat(m.advertisingId()).isEqualTo(server.advertisingIdOf(m.identifier())));
  }

  @Test
  void aFailureWithTwoInFlight_keepsEveryAnswerReceived_andTheNextRunMapsTheRest()
      throws Exception {
    VeilClient fragile = server.client().batchSize(500).retryPolicy(RetryPolicy.none()).build();
    MappingCache cache = open(fragile, 2);
    cache.add(emails(0, 6000));
    server.failMapAfter = 5;

    assertThatThrownBy(cache::mapPending).isInstanceOf(VeilTransportException.class);
    long mappedBefore = cache.size() - cache.pendingCount();
    cache.close();
    opened.clear();
    server.failMapAfter = -1;
    MappingCache reopened = open(fragile, 2);
    CacheReport resumed = reopened.mapPending();

    assertThat(mappedBefore).isEqualTo(5 * 500);
    assertThat(resumed.mapped()).isEqualTo(6000 - mappedBefore);
    Map<Identifier, CachedMapping> all = new HashMap<>();
    reopened.forEach(m -> assertThat(all.put(m.identifier(), m)).as("held once").isNull());
    assertThat(all).hasSize(6000);
  }

  @Test
  void writeCsv_isTheTableInAddOrder_quotingFieldsThatNeedIt() throws Exception {
    MappingCache cache = open(server.client().build(), 1);
    Identifier comma = Identifier.email("\"a,b\"@example.com");
    cache.add(List.of(Identifier.email("x@example.com"), comma, Identifier.email("not an email")));
    cache.mapPending();
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    long rows = cache.writeCsv(out);

    assertThat(rows).isEqualTo(2);
    String x = server.advertisingIdOf(Identifier.email("x@example.com"));
    String c = server.advertisingIdOf(comma);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "identifier,advertising_id,bucket_id\n"
                + "x@example.com,"
                + x
                + ","
                + FakeVeil.bucketId(server.bucketOf(Identifier.email("x@example.com")))
                + "\n"
                + "\"\"\"a,b\"\"@example.com\","
                + c
                + ","
                + FakeVeil.bucketId(server.bucketOf(comma))
                + "\n");
  }

  @Test
  void writeCsvWhileMapping_writesEveryRowOnce_inOrder() throws Exception {
    MappingCache cache = open(server.client().batchSize(1000).build(), 2);
    cache.add(emails(0, 5000));
    AtomicBoolean mapping = new AtomicBoolean(true);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long[] rows = {-1};
    Thread writer =
        new Thread(
            () -> {
              try {
                rows[0] = cache.writeCsvWhileMapping(mapping::get, out);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    writer.start();

    cache.mapPending();
    mapping.set(false);
    writer.join();

    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    assertThat(rows[0]).isEqualTo(5000);
    assertThat(lines).hasSize(5001);
    for (int i = 0; i < 5000; i++) {
      Identifier id = Identifier.email("user" + i + "@example.com");
      assertThat(lines[i + 1])
          .isEqualTo(
              id.value()
                  + ","
                  + server.advertisingIdOf(id)
                  + ","
                  + FakeVeil.bucketId(server.bucketOf(id)));
    }
  }

  @Test
  void bufferedAdds_andTheirCheckpoint_areKeptOnceSynced_orClosed() {
    MappingCache cache = open(server.client().build(), 1);
    cache.addBuffered(batch(emails(0, 10)), "in", 10);
    cache.sync();
    cache.addBuffered(batch(emails(10, 20)), "in", 20);
    cache.close();
    opened.clear();

    MappingCache reopened = open(server.client().build(), 1);

    assertThat(reopened.size()).isEqualTo(20);
    assertThat(reopened.checkpoint("in")).hasValue(20);
  }

  @Test
  void requestsInFlight_isBounded() {
    MappingCache.Builder builder = server.client().build().mappingCache(dir.resolve("x.db"));

    assertThatThrownBy(() -> builder.requestsInFlight(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.requestsInFlight(MappingCache.MAX_REQUESTS_IN_FLIGHT + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
