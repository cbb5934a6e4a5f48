package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.OperatorInfo;
import dev.veil.core.token.PublisherInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bidder's decryptor with a client secret: keys from a fake {@code /v2/key/bidstream}, which
 * names no keysets, and the checks its rules add. Tokens are made here with the core codec.
 */
class TokenDecryptorV2Test {
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Duration THREE_DAYS = Duration.ofDays(3);

  private final TestClock clock = new TestClock(NOW);
  private final FakeVeil v1 = new FakeVeil(clock, 1);
  private final FakeVeilV2 server = new FakeVeilV2(v1);
  private final ManualScheduler scheduler = new ManualScheduler();
  private final AdvertisingTokenCodec codec = new AdvertisingTokenCodec(RANDOM::nextBytes);
  private final EncryptionKey master = key(1, EncryptionKey.MASTER_SITE_ID);
  private final EncryptionKey site7 = key(2, 7);
  private final EncryptionKey site8 = key(3, 8);
  private TokenDecryptor decryptor;

  @AfterEach
  void close() {
    if (decryptor != null) {
      decryptor.close();
    }
    scheduler.shutdownNow();
  }

  private static EncryptionKey key(int id, int siteId) {
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    return new EncryptionKey(
        id,
        siteId,
        NOW.minusSeconds(60),
        NOW.minusSeconds(60),
        NOW.plus(Duration.ofDays(5)),
        secret);
  }

  /** A token of {@code site}'s site, created at {@code created}, expiring at {@code expires}. */
  private String token(EncryptionKey master, EncryptionKey site, Instant created, Instant expires) {
    byte[] advertisingId = new byte[32];
    advertisingId[0] = 42;
    AdvertisingTokenPayload p =
        new AdvertisingTokenPayload(
            IdentityType.EMAIL,
            expires,
            created,
            new OperatorInfo(1, (byte) 1, 1, 1),
            new PublisherInfo(site.siteId(), 0, 0),
            0,
            NOW.minus(THREE_DAYS),
            created,
            advertisingId);
    return codec.encode(p, master, site);
  }

  private String token(EncryptionKey site) {
    return token(master, site, NOW, NOW.plus(THREE_DAYS));
  }

  private TokenDecryptor started(EncryptionKey... keys) {
    v1.keys = List.of(keys);
    decryptor = server.client().build().tokenDecryptor().clock(clock).scheduler(scheduler).build();
    decryptor.start();
    return decryptor;
  }

  @Test
  void keysComeFromBidstream_inAnEnvelopeWithAnEmptyPayload_andDecryptByIdAlone() {
    TokenDecryptor d = started(master, site7);

    DecryptionResult r = d.decrypt(token(site7));

    assertThat(server.requests)
        .singleElement()
        .satisfies(
            req -> {
              assertThat(req.pathAndQuery()).isEqualTo("/v2/key/bidstream");
              assertThat(req.method()).isEqualTo("POST");
              // version, IV, time, nonce and tag: 1 + 12 + 16 + 16 bytes, nothing else
              byte[] raw =
                  Base64.getDecoder().decode(new String(req.body(), StandardCharsets.US_ASCII));
              assertThat(raw).hasSize(45);
            });
    assertThat(server.openedPayloads).singleElement().satisfies(p -> assertThat(p).isEmpty());
    assertThat(v1.requests).isEmpty();
    assertThat(r.isSuccess()).isTrue();
    assertThat(r.siteId()).isEqualTo(7);
    assertThat(r.advertisingId()).startsWith("KgAAAA");
  }

  @Test
  void aSiteKeyTheServerWithheld_isNotAuthorizedForKey_andStartsOneEagerRefresh() {
    TokenDecryptor d = started(master, site7);
    clock.advance(Duration.ofMinutes(2));

    DecryptionResult r = d.decrypt(token(site8));
    d.decrypt(token(site8));

    assertThat(r.status()).isEqualTo(DecryptionStatus.NOT_AUTHORIZED_FOR_KEY);
    assertThat(scheduler.oneShots).hasSize(1);
    v1.keys = List.of(master, site7, site8); // the site shares now
    scheduler.oneShots.remove(0).run();
    assertThat(d.decrypt(token(site8)).isSuccess()).isTrue();
  }

  @Test
  void anUnknownMasterKey_isNotAuthorizedForMasterKey() {
    TokenDecryptor d = started(master, site7);
    EncryptionKey master2 = key(4, EncryptionKey.MASTER_SITE_ID);

    DecryptionResult r = d.decrypt(token(master2, site7, NOW, NOW.plus(THREE_DAYS)));

    assertThat(r.status()).isEqualTo(DecryptionStatus.NOT_AUTHORIZED_FOR_MASTER_KEY);
  }

  @Test
  void aTokenLivingLongerThanTheServerAllows_hasAnInvalidLifetime() {
    server.maxBidstreamLifetimeSeconds = THREE_DAYS.toSeconds();
    TokenDecryptor d = started(master, site7);

    Instant atMax = NOW.plus(THREE_DAYS);
    assertThat(d.decrypt(token(master, site7, NOW, atMax)).isSuccess()).isTrue();
    assertThat(d.decrypt(token(master, site7, NOW, atMax.plusMillis(999))).isSuccess())
        .as("whole seconds are compared")
        .isTrue();
    DecryptionResult over = d.decrypt(token(master, site7, NOW, atMax.plusSeconds(1)));

    assertThat(over.status()).isEqualTo(DecryptionStatus.INVALID_TOKEN_LIFETIME);
    assertThat(over.reason()).contains("259201 s").contains("259200 s");
  }

  @Test
  void aTokenCreatedFurtherAheadThanTheAllowedSkew_hasAnInvalidLifetime() {
    server.allowClockSkewSeconds = 60L;
    TokenDecryptor d = started(master, site7);
    Instant expires = NOW.plus(Duration.ofDays(1));

    assertThat(d.decrypt(token(master, site7, NOW.plusSeconds(60), expires)).isSuccess()).isTrue();
    assertThat(d.decrypt(token(master, site7, NOW.plusSeconds(61), expires)).status())
        .isEqualTo(DecryptionStatus.INVALID_TOKEN_LIFETIME);
  }

  @Test
  void withoutLimitsInTheAnswer_nothingLivesTooLong_andTheSkewIsHalfAnHour() {
    server.maxBidstreamLifetimeSeconds = null;
    server.allowClockSkewSeconds = null;
    TokenDecryptor d = started(master, site7);
    Instant far = NOW.plus(Duration.ofDays(4));

    assertThat(d.decrypt(token(master, site7, NOW.minus(Duration.ofDays(400)), far)).isSuccess())
        .isTrue();
    assertThat(d.decrypt(token(master, site7, NOW.plusSeconds(1_800), far)).isSuccess()).isTrue();
    assertThat(d.decrypt(token(master, site7, NOW.plusSeconds(1_801), far)).status())
        .isEqualTo(DecryptionStatus.INVALID_TOKEN_LIFETIME);
  }

  @Test
  void theDomainCheck_passesForANameTheSiteLists_inAnyCase() {
    server.siteData = Map.of(7, List.of("example.com", "com.example.app"), 8, List.of("other.org"));
    TokenDecryptor d = started(master, site7, site8);
    String token = token(site7);

    assertThat(d.decrypt(token, "example.com").isSuccess()).isTrue();
    assertThat(d.decrypt(token, "EXAMPLE.Com").isSuccess()).isTrue();
    assertThat(d.decrypt(token, "com.example.app").isSuccess()).isTrue();
    DecryptionResult other = d.decrypt(token, "other.org");
    assertThat(other.status()).isEqualTo(DecryptionStatus.DOMAIN_OR_APP_NAME_CHECK_FAILED);
    assertThat(other.reason()).contains("site 7").doesNotContain("other.org");
    assertThat(d.decrypt(token, "sub.example.com").status())
        .isEqualTo(DecryptionStatus.DOMAIN_OR_APP_NAME_CHECK_FAILED);
  }

  @Test
  void theDomainCheck_failsForASiteWithoutNames_orWithoutSiteData() {
    server.siteData = Map.of(8, List.of("example.com"));
    TokenDecryptor d = started(master, site7, site8);
    assertThat(d.decrypt(token(site7), "example.com").status())
        .isEqualTo(DecryptionStatus.DOMAIN_OR_APP_NAME_CHECK_FAILED);

    server.siteData = null;
    d.refreshKeys();
    assertThat(d.decrypt(token(site8), "example.com").status())
        .isEqualTo(DecryptionStatus.DOMAIN_OR_APP_NAME_CHECK_FAILED);
    assertThat(d.decrypt(token(site8)).isSuccess()).isTrue();
  }

  @Test
  void aFailedRefresh_keepsThePreviousKeysAndRules() {
    server.siteData = Map.of(7, List.of("example.com"));
    TokenDecryptor d = started(master, site7);
    for (int i = 0; i < 4; i++) {
      v1.script.add(new IOException("down"));
    }
    server.siteData = Map.of();

    scheduler.runPeriodic();

    assertThat(d.lastRefreshFailure()).get().isInstanceOf(VeilTransportException.class);
    assertThat(d.decrypt(token(site7), "example.com").isSuccess()).isTrue();
  }

  @Test
  void aV1Decryptor_appliesNoLimits_andFailsEveryDomainCheck() {
    v1.keys = List.of(master, site7);
    decryptor = v1.client().build().tokenDecryptor().clock(clock).scheduler(scheduler).build();
    decryptor.start();
    String longLived = token(master, site7, NOW.minus(Duration.ofDays(400)), NOW.plus(THREE_DAYS));

    assertThat(v1.requests)
        .singleElement()
        .extracting(r -> r.pathAndQuery())
        .isEqualTo("/v1/key/latest");
    assertThat(decryptor.decrypt(longLived).isSuccess()).isTrue();
    DecryptionResult withName = decryptor.decrypt(longLived, "example.com");
    assertThat(withName.status()).isEqualTo(DecryptionStatus.DOMAIN_OR_APP_NAME_CHECK_FAILED);
    assertThat(withName.reason()).contains("v1");
    assertThat(decryptor.decrypt(token(master, key(9, 9), NOW, NOW.plus(THREE_DAYS))).status())
        .isEqualTo(DecryptionStatus.UNKNOWN_KEY);
  }
}
