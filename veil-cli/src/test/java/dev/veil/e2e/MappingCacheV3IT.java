package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.sdk.CacheReport;
import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.VeilClient;
import dev.veil.testing.MutableClock;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data collector's flow on v3: a {@link MappingCache} given the client's secret maps over
 * {@code POST /v3/identity/map} and refreshes by refresh times and {@code POST /v2/optout/status}
 * instead of polling buckets, against a real node over HTTP. Expectations are checked against the
 * node's own v1 map answers, not against the client.
 */
class MappingCacheV3IT {
  @TempDir Path dir;
  private TestNode node;
  private CreatedClient mapper;
  private String optOutKey;

  /** The cache's clock: the node's, or days ahead of it (the node must stay at the real time). */
  private MutableClock cacheClock;

  @BeforeEach
  void start() {
    node = TestNode.start();
    // The client stamps its envelopes with the real time, which must be within two minutes of the
    // node's clock.
    node.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    mapper = node.newClient(Role.MAPPER);
    optOutKey = node.newApiKey(Role.OPTOUT);
    cacheClock = new MutableClock(node.clock().instant());
  }

  @AfterEach
  void stop() {
    node.close();
  }

  /** A builder of the mapper's client; over v3 when given its secret. */
  private VeilClient.Builder mapperClient() {
    return VeilClient.builder()
        .baseUrl("http://127.0.0.1:" + node.port())
        .apiKey(mapper.key().reveal());
  }

  private MappingCache cache(String file, MappingCache.Listener listener) {
    VeilClient client = mapperClient().clientSecret(mapper.client().secret().reveal()).build();
    return client.mappingCache(dir.resolve(file)).clock(cacheClock).listener(listener).build();
  }

  private String v1AdvertisingId(String email) {
    return node.post("/v1/identity/map", mapper.key().reveal(), "{\"email\":[\"" + email + "\"]}")
        .bodyNode()
        .path("mapped")
        .get(0)
        .path("advertising_id")
        .asText();
  }

  private static List<Identifier> emails(int n) {
    List<Identifier> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(Identifier.email("member" + i + "@example.com"));
    }
    return ids;
  }

  @Test
  void mapsOverV3_withRefreshTimesAndNoBucketIds_asV1MapsThem() {
    List<Identifier> ids = emails(50);
    try (MappingCache cache = cache("v3.veil-cache", new MappingCache.Listener() {})) {
      cache.add(ids);
      CacheReport report = cache.mapPending();
      assertThat(report.mapped()).isEqualTo(50);
      for (Identifier id : ids) {
        CachedMapping m = cache.get(id).orElseThrow();
        assertThat(m.advertisingId()).isEqualTo(v1AdvertisingId(id.value()));
        assertThat(m.bucketId()).isNull();
        assertThat(m.previousAdvertisingId()).isNull();
        assertThat(m.refreshFrom()).isAfter(node.clock().instant());
        assertThat(m.stale()).isFalse();
      }
    }
  }

  @Test
  void mapsOverV3_throughTheJdksHttpClient_asThroughTheClientsOwnSockets() {
    List<Identifier> ids = emails(20);
    VeilClient client =
        mapperClient()
            .clientSecret(mapper.client().secret().reveal())
            .httpClient(HttpClient.newHttpClient()) // raw envelopes through the other transport
            .build();
    try (MappingCache cache =
        client.mappingCache(dir.resolve("jdk.veil-cache")).clock(cacheClock).build()) {
      cache.add(ids);
      assertThat(cache.mapPending().mapped()).isEqualTo(20);
      for (Identifier id : ids) {
        assertThat(cache.get(id).orElseThrow().advertisingId())
            .isEqualTo(v1AdvertisingId(id.value()));
      }
    }
  }

  @Test
  void anIdentityOptedOutAfterMapping_isRemovedByTheNextRefresh_thoughItsBucketDidNotRotate() {
    List<Identifier> ids = emails(40);
    List<Identifier> removed = new CopyOnWriteArrayList<>();
    MappingCache.Listener listener =
        new MappingCache.Listener() {
          @Override
          public void removed(Identifier identifier, MapOutcome.Reason reason) {
            assertThat(reason).isEqualTo(MapOutcome.Reason.OPTED_OUT);
            removed.add(identifier);
          }
        };
    try (MappingCache cache = cache("optout.veil-cache", listener)) {
      cache.add(ids);
      cache.mapPending();
      Identifier leaving = ids.get(7);
      assertThat(
              node.post("/v1/optout", optOutKey, "{\"email\":\"" + leaving.value() + "\"}")
                  .status())
          .isEqualTo("success");

      // The next refresh, before any entry's refresh time: only the opt-out check can find it.
      Instant firstRefresh = Instant.MAX;
      for (Identifier id : ids) {
        Instant r = cache.get(id).orElseThrow().refreshFrom();
        firstRefresh = r.isBefore(firstRefresh) ? r : firstRefresh;
      }
      cacheClock.set(firstRefresh.minusSeconds(1));
      CacheReport report = cache.refresh();

      assertThat(report.optedOut()).isEqualTo(1);
      assertThat(report.markedStale()).as("no refresh time has passed").isZero();
      assertThat(report.sent()).isEqualTo(1);
      assertThat(removed).containsExactly(leaving);
      assertThat(cache.get(leaving)).isEmpty();
      assertThat(cache.size()).isEqualTo(39);
      List<MapOutcome.Reason> reasons = new ArrayList<>();
      cache.forEachRejection(r -> reasons.add(r.reason()));
      assertThat(reasons).containsExactly(MapOutcome.Reason.OPTED_OUT);
    }
    // Durable: the removal is in the file.
    try (MappingCache reopened = cache("optout.veil-cache", new MappingCache.Listener() {})) {
      assertThat(reopened.size()).isEqualTo(39);
      assertThat(reopened.get(ids.get(7))).isEmpty();
    }
  }

  @Test
  void onceRefreshTimesPass_entriesAreMappedAgain_keepingThePreviousIdOfRotatedBuckets() {
    List<Identifier> ids = emails(300);
    Map<Identifier, String> before = new HashMap<>();
    try (MappingCache cache = cache("rotation.veil-cache", new MappingCache.Listener() {})) {
      cache.add(ids);
      cache.mapPending();
      cache.forEach(m -> before.put(m.identifier(), m.advertisingId()));

      node.clock().advance(Duration.ofSeconds(5));
      assertThat(node.services().salts().rotateFraction(0.25)).isPositive();
      node.clock().advance(Duration.ofSeconds(5));

      CacheReport early = cache.refresh();
      assertThat(early.markedStale()).as("refresh times lie 30 days or more ahead").isZero();

      cacheClock.advance(Duration.ofDays(61));
      CacheReport report = cache.refresh();
      assertThat(report.markedStale()).isEqualTo(300);
      assertThat(report.remapped()).isEqualTo(300);

      int rotated = 0;
      for (Identifier id : ids) {
        CachedMapping m = cache.get(id).orElseThrow();
        assertThat(m.advertisingId()).isEqualTo(v1AdvertisingId(id.value()));
        assertThat(m.refreshFrom()).isAfter(node.clock().instant());
        if (m.advertisingId().equals(before.get(id))) {
          assertThat(m.previousAdvertisingId()).as(id.value()).isNull();
        } else {
          rotated++;
          assertThat(m.previousAdvertisingId()).as(id.value()).isEqualTo(before.get(id));
        }
      }
      assertThat(rotated).isBetween(1, ids.size() - 1);
    }
  }

  @Test
  void aCacheMappedOverV1_opensOnV3_andItsFirstRefreshMapsEveryEntryAgain() {
    List<Identifier> ids = emails(20);
    VeilClient v1 = mapperClient().build();
    try (MappingCache cache = v1.mappingCache(dir.resolve("moved.veil-cache")).build()) {
      cache.add(ids);
      cache.mapPending();
      assertThat(cache.get(ids.get(0)).orElseThrow().bucketId()).isNotNull();
    }
    try (MappingCache cache = cache("moved.veil-cache", new MappingCache.Listener() {})) {
      CacheReport report = cache.refresh();
      assertThat(report.markedStale()).isEqualTo(20);
      assertThat(report.remapped()).isEqualTo(20);
      for (Identifier id : ids) {
        CachedMapping m = cache.get(id).orElseThrow();
        assertThat(m.bucketId()).isNull();
        assertThat(m.refreshFrom()).isAfter(node.clock().instant());
        assertThat(m.advertisingId()).isEqualTo(v1AdvertisingId(id.value()));
      }
    }
  }

  @Test
  void theCsv_hasV3sColumns() throws Exception {
    List<Identifier> ids = emails(3);
    try (MappingCache cache = cache("csv.veil-cache", new MappingCache.Listener() {})) {
      cache.add(ids);
      cache.mapPending();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      assertThat(cache.writeCsv(out)).isEqualTo(3);
      String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
      assertThat(lines[0])
          .isEqualTo("identifier,advertising_id,previous_advertising_id,refresh_from");
      CachedMapping first = cache.get(ids.get(0)).orElseThrow();
      assertThat(lines[1])
          .isEqualTo(
              ids.get(0).value()
                  + ","
                  + first.advertisingId()
                  + ",,"
                  + first.refreshFrom().getEpochSecond());
    }
  }
}
