package dev.veil.sdk;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class IdentityMapClientTest {
  private final TestClock clock = new TestClock(Instant.parse("2026-03-01T12:00:00Z"));
  private final FakeVeil server = new FakeVeil(clock, 8);

  private static List<Identifier> emails(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> Identifier.email("user" + i + "@example.com"))
        .toList();
  }

  @Test
  void map_splitsIntoBatchesOfAtMost5000_sentInSequence_outcomesInInputOrder() throws Exception {
    List<Identifier> ids = emails(12_001);
    List<long[]> progress = new ArrayList<>();

    List<MapOutcome> outcomes =
        server
            .client()
            .build()
            .mapper()
            .map(ids, (done, total) -> progress.add(new long[] {done, total}));

    assertThat(server.mapBatches()).extracting(List::size).containsExactly(5000, 5000, 2001);
    assertThat(outcomes).hasSize(12_001);
    for (int i = 0; i < ids.size(); i++) {
      MapOutcome.Mapped m = (MapOutcome.Mapped) outcomes.get(i);
      assertThat(m.identifier()).isEqualTo(ids.get(i));
      assertThat(m.advertisingId()).isEqualTo(server.advertisingIdOf(ids.get(i)));
      assertThat(m.bucketId()).isEqualTo(FakeVeil.bucketId(server.bucketOf(ids.get(i))));
    }
    assertThat(progress).extracting(p -> p[0]).containsExactly(5000L, 10_000L, 12_001L);
    assertThat(progress).extracting(p -> p[1]).containsOnly(12_001L);
  }

  @Test
  void map_aSmallerBatchSize_isHonoured() throws Exception {
    server.client().batchSize(1000).build().mapper().map(emails(2500));

    assertThat(server.mapBatches()).extracting(List::size).containsExactly(1000, 1000, 500);
  }

  @Test
  void map_keepsEachRequestBodyUnderTheByteLimit() throws Exception {
    List<Identifier> ids =
        IntStream.range(0, 100)
            .mapToObj(i -> Identifier.email("x".repeat(200) + i + "@example.com"))
            .toList();

    server.client().batchBytes(5_000).build().mapper().map(ids);

    List<List<String>> batches = server.mapBatches();
    assertThat(batches).hasSizeGreaterThan(4);
    assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(100);
    for (var r : server.requests) {
      assertThat(r.body().length).isLessThanOrEqualTo(5_000);
    }
  }

  @Test
  void map_mixedKinds_goInSeparateRequests_andInvalidOnesAreNotSent() throws Exception {
    Identifier email = Identifier.email("a@example.com");
    Identifier phone = Identifier.phone("+12025550123");
    Identifier bad = Identifier.email("not an email");
    Identifier hash =
        Identifier.emailHash(IdentityHash.parse(IdentityInput.EMAIL, "b@example.com").toBase64());

    List<MapOutcome> outcomes =
        server.client().build().mapper().map(List.of(email, bad, phone, hash, email));

    assertThat(outcomes)
        .extracting(MapOutcome::identifier)
        .containsExactly(email, bad, phone, hash, email);
    assertThat(outcomes.get(1))
        .isEqualTo(new MapOutcome.Unmapped(bad, MapOutcome.Reason.INVALID_IDENTIFIER));
    assertThat(outcomes.get(0)).isEqualTo(outcomes.get(4));
    assertThat(server.mapBatches())
        .containsExactlyInAnyOrder(
            List.of("a@example.com", "a@example.com"),
            List.of("+12025550123"),
            List.of(hash.value()));
    assertThat(server.mapBatches().toString()).doesNotContain("not an email");
  }

  @Test
  void map_withHashIdentifiers_sendsOnlyHashes_andReportsTheCallersIdentifiers() throws Exception {
    Identifier email = Identifier.email("  Jane.Doe@Example.COM ");
    Identifier phone = Identifier.phone("+12025550123");

    List<MapOutcome> outcomes =
        server.client().hashIdentifiers(true).build().mapper().map(List.of(email, phone));

    String body =
        new String(server.requests.get(0).body(), UTF_8)
            + new String(server.requests.get(1).body(), UTF_8);
    assertThat(body)
        .doesNotContain("Jane")
        .doesNotContain("jane")
        .doesNotContain("+1202")
        .contains("email_hash")
        .contains("phone_hash")
        .contains(IdentityHash.parse(IdentityInput.EMAIL, "jane.doe@example.com").toBase64());
    assertThat(outcomes).extracting(MapOutcome::identifier).containsExactly(email, phone);
    assertThat(((MapOutcome.Mapped) outcomes.get(0)).advertisingId())
        .isEqualTo(server.advertisingIdOf(email));
  }

  @Test
  void map_optedOut_isUnmappedWithItsReason() {
    Identifier gone = Identifier.email("gone@example.com");
    server.optOut(gone);

    MapOutcome outcome = server.client().build().mapper().map(gone);

    assertThat(outcome).isEqualTo(new MapOutcome.Unmapped(gone, MapOutcome.Reason.OPTED_OUT));
  }

  @Test
  void rotatedBuckets_listsTheBucketsRotatedAfterSince() {
    IdentityMapClient mapper = server.client().build().mapper();
    Instant before = clock.instant();
    clock.advance(java.time.Duration.ofMillis(1500));
    server.rotate(2, 5);

    List<RotatedBucket> rotated = mapper.rotatedBuckets(before.plusSeconds(1));

    assertThat(rotated)
        .containsExactly(
            new RotatedBucket("bucket-2", Instant.parse("2026-03-01T12:00:02Z")),
            new RotatedBucket("bucket-5", Instant.parse("2026-03-01T12:00:02Z")));
    assertThat(server.requests.get(0).pathAndQuery())
        .isEqualTo(
            "/v1/identity/buckets?since_timestamp=" + before.plusSeconds(1).getEpochSecond());
  }

  @Test
  void rotatedBuckets_toASink_handsOverTheSameBuckets_oneAtATime() {
    IdentityMapClient mapper = server.client().build().mapper();
    Instant before = clock.instant();
    clock.advance(java.time.Duration.ofMillis(1500));
    server.rotate(2, 5);
    List<RotatedBucket> seen = new java.util.ArrayList<>();

    long listed = mapper.rotatedBuckets(before.plusSeconds(1), seen::add);

    assertThat(listed).isEqualTo(2);
    assertThat(seen).isEqualTo(mapper.rotatedBuckets(before.plusSeconds(1)));
  }

  @Test
  void requests_neverShowIdentifiersInTheirDescription() {
    server.client().build().mapper().map(Identifier.email("secret@example.com"));

    assertThat(server.requests.get(0).toString()).isEqualTo("POST /v1/identity/map");
    assertThat(Identifier.email("secret@example.com").toString()).doesNotContain("secret");
  }
}
