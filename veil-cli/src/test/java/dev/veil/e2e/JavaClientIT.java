package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.client.Role;
import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import dev.veil.sdk.CacheReport;
import dev.veil.sdk.CachedMapping;
import dev.veil.sdk.DecryptionResult;
import dev.veil.sdk.DecryptionStatus;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.IdentityTokens;
import dev.veil.sdk.MapOutcome;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.TokenDecryptor;
import dev.veil.sdk.TokenOutcome;
import dev.veil.sdk.VeilApiException;
import dev.veil.sdk.VeilClient;
import dev.veil.server.VeilServer;
import dev.veil.testing.Http;
import dev.veil.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client against a real in-process node (SQLite store, HTTP on a loopback port) whose
 * clock the test moves: publisher flow, bidder decryption across a key rotation, and the mapping
 * cache across a salt rotation and opt-outs. Every expectation is checked against the server's own
 * answers over raw HTTP, not against the client.
 */
class JavaClientIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant START = Instant.parse("2026-03-01T12:00:00.250Z");

  @TempDir static Path dir;
  private static final MutableClock clock = new MutableClock(START);
  private static VeilServer server;
  private static Http http;
  private static String publisherKey;
  private static String mapperKey;
  private static String bidderKey;
  private static String optOutKey;

  @BeforeAll
  static void start() {
    Map<String, String> flags = new HashMap<>();
    flags.put("http.port", "0");
    flags.put("grpc.port", "0");
    flags.put("console.port", "0");
    flags.put("salt.buckets", "256");
    flags.put("data.dir", dir.resolve("data").toString());
    VeilConfig config = ConfigLoader.load(null, Map.of(), flags);
    server = VeilServer.start(config, clock);
    http = new Http("http://127.0.0.1:" + server.httpPort());
    publisherKey = key(Role.GENERATOR);
    mapperKey = key(Role.MAPPER);
    bidderKey = key(Role.ID_READER);
    optOutKey = key(Role.OPTOUT);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String key(Role role) {
    return server.services().clients().create("it " + role, 0, Set.of(role)).key().reveal();
  }

  private static VeilClient client(String apiKey) {
    return VeilClient.builder()
        .baseUrl("http://127.0.0.1:" + server.httpPort())
        .apiKey(apiKey)
        .build();
  }

  /**
   * The server's own answer for emails, by raw POST /v1/identity/map: identifier ->
   * [advertising_id, bucket_id].
   */
  private static Map<String, String[]> serverMap(List<String> emails) {
    return http.identityMap(mapperKey, "email", emails);
  }

  // --- publisher ---

  @Test
  void publisher_generatesAndRefreshes_andTheTestIdentitysRefreshEndsInOptOut() {
    VeilClient veil = client(publisherKey);

    IdentityTokens first =
        veil.publisher()
            .generate(Identifier.email("pub@example.com").hashed())
            .issuedTokens()
            .orElseThrow();
    TokenOutcome refreshed = veil.publisher().refresh(first.refreshToken());
    TokenOutcome testIdentity =
        veil.publisher()
            .refresh(
                veil.publisher()
                    .generate(Identifier.email("validate@example.com"))
                    .issuedTokens()
                    .orElseThrow()
                    .refreshToken());

    assertThat(first.identityExpires()).isAfter(clock.instant());
    assertThat(refreshed.issuedTokens())
        .get()
        .extracting(IdentityTokens::advertisingToken)
        .isNotEqualTo(first.advertisingToken());
    assertThat(testIdentity).isEqualTo(new TokenOutcome.OptedOut());
    assertThat(veil.publisher().refresh("not a token")).isEqualTo(new TokenOutcome.InvalidToken());
  }

  @Test
  void publisher_optedOutUser_getsNoTokens() throws Exception {
    Identifier user = Identifier.email("gone-publisher@example.com");
    assertThat(
            http.post("/v1/optout", optOutKey, "{\"email\":\"gone-publisher@example.com\"}").code())
        .isEqualTo(200);

    assertThat(client(publisherKey).publisher().generate(user))
        .isEqualTo(new TokenOutcome.OptedOut());
  }

  @Test
  void aKeyWithoutTheRole_isRefusedWithTheServersStatus() {
    try {
      client(mapperKey).publisher().generate(Identifier.email("x@example.com"));
      throw new AssertionError("expected a refusal");
    } catch (VeilApiException e) {
      assertThat(e.httpStatus()).isEqualTo(401);
      assertThat(e.status()).isEqualTo("unauthorized");
      assertThat(e.serverMessage()).contains("GENERATOR");
    }
  }

  // --- bidder ---

  @Test
  void bidder_decryptsGenerateTokens_alsoAfterAKeyRotation_andRejectsTamperedAndExpiredOnes() {
    VeilClient publisher = client(publisherKey);
    String before =
        publisher
            .publisher()
            .generate(Identifier.email("bidder@example.com"))
            .issuedTokens()
            .orElseThrow()
            .advertisingToken();
    String expected = serverAdvertisingId("bidder@example.com");
    TokenDecryptor decryptor = client(bidderKey).tokenDecryptor().clock(clock).build();
    decryptor.refreshKeys();

    DecryptionResult r = decryptor.decrypt(before);
    assertThat(r.status()).isEqualTo(DecryptionStatus.SUCCESS);
    assertThat(r.advertisingId()).isEqualTo(expected);
    assertThat(r.siteId()).isEqualTo(publisherSite());
    assertThat(r.expires()).isEqualTo(r.created().plus(Duration.ofDays(3)));
    assertThat(r.established()).isEqualTo(r.created());

    server.services().keys().rotateNow(List.of());
    clock.advance(
        Duration.ofHours(1).plusSeconds(1)); // past the activation delay: new keys encrypt
    String after =
        publisher
            .publisher()
            .generate(Identifier.email("bidder@example.com"))
            .issuedTokens()
            .orElseThrow()
            .advertisingToken();
    assertThat(decryptor.decrypt(after).status()).isEqualTo(DecryptionStatus.UNKNOWN_KEY);
    decryptor.refreshKeys();
    assertThat(decryptor.decrypt(after).advertisingId()).isEqualTo(expected);
    assertThat(decryptor.decrypt(before).advertisingId()).isEqualTo(expected);

    char[] chars = after.toCharArray();
    chars[100] = chars[100] == 'A' ? 'B' : 'A';
    assertThat(decryptor.decrypt(new String(chars)).status()).isEqualTo(DecryptionStatus.TAMPERED);

    MutableClock later = new MutableClock(clock.instant().plus(Duration.ofHours(73)));
    TokenDecryptor lateBidder = client(bidderKey).tokenDecryptor().clock(later).build();
    lateBidder.refreshKeys();
    assertThat(lateBidder.decrypt(before).status()).isEqualTo(DecryptionStatus.EXPIRED);
    assertThat(lateBidder.decrypt(before).reason()).startsWith("token expired at ");
  }

  /** The site of the publisher's client ("it GENERATOR"). */
  private static int publisherSite() {
    return server.services().clients().list().stream()
        .filter(c -> c.name().equals("it GENERATOR"))
        .findFirst()
        .orElseThrow()
        .siteId();
  }

  private static String serverAdvertisingId(String email) {
    return serverMap(List.of(email)).get(email)[0];
  }

  // --- data collector ---

  @Test
  void mappingCache_remapsExactlyTheRotatedBuckets_removesOptOuts_andSurvivesReopening()
      throws Exception {
    List<String> emails =
        IntStream.range(0, 10_000).mapToObj(i -> "collector" + i + "@example.com").toList();
    Path file = dir.resolve("collector.db");
    List<String> removed = new ArrayList<>();
    MappingCache.Listener listener =
        new MappingCache.Listener() {
          @Override
          public void removed(Identifier identifier, MapOutcome.Reason reason) {
            removed.add(identifier.value() + " " + reason);
          }
        };
    VeilClient veil = client(mapperKey);
    Map<String, String[]> mappedBefore;
    try (MappingCache cache = veil.mappingCache(file).clock(clock).listener(listener).build()) {
      cache.add(emails.stream().map(Identifier::email).toList());
      assertThat(cache.mapPending().mapped()).isEqualTo(10_000);
      mappedBefore = serverMap(emails);
      assertSameAs(cache, mappedBefore);
    }
    clock.advance(Duration.ofMinutes(1));
    String leaver = emails.get(17);
    assertThat(http.post("/v1/optout", optOutKey, "{\"email\":\"" + leaver + "\"}").code())
        .isEqualTo(200);
    server.services().salts().rotateFraction(0.1);
    server.services().salts().rotateBuckets(List.of(mappedBefore.get(leaver)[1]));
    clock.advance(Duration.ofMinutes(1));

    CacheReport report;
    try (MappingCache reopened = veil.mappingCache(file).clock(clock).listener(listener).build()) {
      report = reopened.refresh();
      Map<String, String[]> mappedAfter = serverMap(emails);
      assertSameAs(reopened, mappedAfter);
      Set<String> rotated = new java.util.HashSet<>();
      JsonNode buckets =
          JSON.readTree(
                  http.get(
                          "/v1/identity/buckets?since_timestamp="
                              + clock.instant().minus(Duration.ofMinutes(2)).getEpochSecond(),
                          mapperKey)
                      .body())
              .path("body");
      buckets.forEach(b -> rotated.add(b.get("bucket_id").asText()));
      long inRotated =
          emails.stream().filter(e -> rotated.contains(mappedBefore.get(e)[1])).count();
      assertThat(report.markedStale()).isEqualTo(inRotated);
      assertThat(report.remapped() + report.optedOut()).isEqualTo(inRotated);
      for (String e : emails) {
        if (e.equals(leaver)) {
          continue;
        }
        boolean changed = !mappedBefore.get(e)[0].equals(mappedAfter.get(e)[0]);
        assertThat(changed).as(e).isEqualTo(rotated.contains(mappedBefore.get(e)[1]));
      }
      assertThat(reopened.get(Identifier.email(leaver))).isEmpty();
      assertThat(reopened.size()).isEqualTo(9_999);
    }
    assertThat(report.optedOut()).isEqualTo(1);
    assertThat(removed).containsExactly(leaver + " OPTED_OUT");
  }

  private static void assertSameAs(MappingCache cache, Map<String, String[]> serverAnswers) {
    int[] seen = {0};
    cache.forEach(
        (CachedMapping m) -> {
          String[] answer = serverAnswers.get(m.identifier().value());
          assertThat(m.advertisingId()).isEqualTo(answer[0]);
          assertThat(m.bucketId()).isEqualTo(answer[1]);
          assertThat(m.stale()).isFalse();
          seen[0]++;
        });
    assertThat(seen[0]).isEqualTo(serverAnswers.size());
  }
}
