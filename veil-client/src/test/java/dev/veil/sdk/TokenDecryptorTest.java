package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.OperatorInfo;
import dev.veil.core.token.PublisherInfo;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bidder's decryptor with a fake key endpoint, a test clock and a scheduler that runs nothing
 * by itself.
 */
class TokenDecryptorTest {
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final TestClock clock = new TestClock(NOW);
  private final FakeVeil server = new FakeVeil(clock, 1);
  private final ManualScheduler scheduler = new ManualScheduler();
  private final AdvertisingTokenCodec codec = new AdvertisingTokenCodec(RANDOM::nextBytes);
  private final EncryptionKey master1 =
      key(1, EncryptionKey.MASTER_SITE_ID, NOW.plus(Duration.ofDays(5)));
  private final EncryptionKey site1 = key(2, 7, NOW.plus(Duration.ofDays(5)));
  private TokenDecryptor decryptor;

  @AfterEach
  void close() {
    if (decryptor != null) {
      decryptor.close();
    }
    scheduler.shutdownNow();
  }

  private static EncryptionKey key(int id, int siteId, Instant expires) {
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    return new EncryptionKey(
        id, siteId, NOW.minusSeconds(60), NOW.minusSeconds(60), expires, secret);
  }

  private String token(EncryptionKey master, EncryptionKey site, Instant expires) {
    byte[] advertisingId = new byte[32];
    advertisingId[0] = 42;
    AdvertisingTokenPayload p =
        new AdvertisingTokenPayload(
            IdentityType.EMAIL,
            expires,
            NOW,
            new OperatorInfo(1, (byte) 1, 1, 1),
            new PublisherInfo(site.siteId(), 0, 0),
            0,
            NOW.minus(Duration.ofDays(3)),
            NOW,
            advertisingId);
    return codec.encode(p, master, site);
  }

  private TokenDecryptor started() {
    server.keys = List.of(master1, site1);
    decryptor = server.client().build().tokenDecryptor().clock(clock).scheduler(scheduler).build();
    decryptor.start();
    return decryptor;
  }

  @Test
  void decrypt_readsAdvertisingIdSiteEstablishedAndExpiry_withoutCallingTheServer() {
    TokenDecryptor d = started();
    int requests = server.requests.size();

    DecryptionResult r = d.decrypt(token(master1, site1, NOW.plus(Duration.ofDays(3))));

    assertThat(r.isSuccess()).isTrue();
    assertThat(r.siteId()).isEqualTo(7);
    assertThat(r.advertisingId()).startsWith("KgAAAA");
    assertThat(r.established()).isEqualTo(NOW.minus(Duration.ofDays(3)));
    assertThat(r.expires()).isEqualTo(NOW.plus(Duration.ofDays(3)));
    assertThat(r.toString()).contains("SUCCESS").doesNotContain("KgAAAA");
    assertThat(server.requests).hasSize(requests);
  }

  @Test
  void start_schedulesAnHourlyRefresh_whichPicksUpNewKeys() {
    TokenDecryptor d = started();
    assertThat(scheduler.periodMillis).isEqualTo(Duration.ofHours(1).toMillis());
    EncryptionKey master2 = key(3, EncryptionKey.MASTER_SITE_ID, NOW.plus(Duration.ofDays(6)));
    EncryptionKey site2 = key(4, 7, NOW.plus(Duration.ofDays(6)));
    String newToken = token(master2, site2, NOW.plus(Duration.ofDays(3)));
    String oldToken = token(master1, site1, NOW.plus(Duration.ofDays(3)));
    server.keys = List.of(master1, site1, master2, site2);

    assertThat(d.decrypt(newToken).status()).isEqualTo(DecryptionStatus.UNKNOWN_KEY);
    clock.advance(Duration.ofHours(1));
    scheduler.runPeriodic();

    assertThat(d.decrypt(newToken).isSuccess()).isTrue();
    assertThat(d.decrypt(oldToken).isSuccess()).isTrue();
    assertThat(d.keyCount()).isEqualTo(4);
    assertThat(d.keysFetchedAt()).contains(NOW.plus(Duration.ofHours(1)));
  }

  @Test
  void unknownKey_startsOneEagerRefresh_atMostOncePerMinute() {
    TokenDecryptor d = started();
    EncryptionKey master2 = key(3, EncryptionKey.MASTER_SITE_ID, NOW.plus(Duration.ofDays(6)));
    String newToken = token(master2, site1, NOW.plus(Duration.ofDays(3)));
    server.keys = List.of(master1, site1, master2);

    d.decrypt(newToken);
    assertThat(scheduler.oneShots).isEmpty(); // the start was less than a minute ago
    clock.advance(Duration.ofMinutes(2));
    d.decrypt(newToken);
    d.decrypt(newToken);
    assertThat(scheduler.oneShots).hasSize(1);
    scheduler.oneShots.remove(0).run();

    assertThat(d.decrypt(newToken).isSuccess()).isTrue();
  }

  @Test
  void afterClose_decryptGoesOnWithTheKeysHeld_andAnUnknownKeyStartsNoRefresh() {
    server.keys = List.of(master1, site1);
    decryptor = server.client().build().tokenDecryptor().clock(clock).build(); // its own scheduler
    decryptor.start();
    EncryptionKey master2 = key(3, EncryptionKey.MASTER_SITE_ID, NOW.plus(Duration.ofDays(6)));
    String known = token(master1, site1, NOW.plus(Duration.ofDays(3)));
    String unknown = token(master2, site1, NOW.plus(Duration.ofDays(3)));

    decryptor.close();
    clock.advance(Duration.ofMinutes(2)); // an eager refresh would be due

    assertThat(decryptor.decrypt(unknown).status()).isEqualTo(DecryptionStatus.UNKNOWN_KEY);
    assertThat(decryptor.decrypt(known).isSuccess()).isTrue();
    assertThat(decryptor.lastRefreshFailure()).isEmpty();
    assertThatThrownBy(decryptor::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void aGivenSchedulerThatRefusesTheEagerRefresh_isReported_notThrownFromDecrypt() {
    TokenDecryptor d = started();
    scheduler.refuseOneShots = true; // as a scheduler of the caller's that was shut down
    EncryptionKey master2 = key(3, EncryptionKey.MASTER_SITE_ID, NOW.plus(Duration.ofDays(6)));
    clock.advance(Duration.ofMinutes(2));

    assertThat(d.decrypt(token(master2, site1, NOW.plus(Duration.ofDays(3)))).status())
        .isEqualTo(DecryptionStatus.UNKNOWN_KEY);
    assertThat(d.lastRefreshFailure())
        .get()
        .extracting(Throwable::getMessage)
        .asString()
        .contains("could not be started");
    assertThat(d.decrypt(token(master1, site1, NOW.plus(Duration.ofDays(3)))).isSuccess()).isTrue();
  }

  @Test
  void expiredToken_isRejectedWithItsExpiry() {
    TokenDecryptor d = started();
    String token = token(master1, site1, NOW.plus(Duration.ofDays(3)));

    clock.advance(Duration.ofDays(3));
    DecryptionResult r = d.decrypt(token);

    assertThat(r.status()).isEqualTo(DecryptionStatus.EXPIRED);
    assertThat(r.reason()).isEqualTo("token expired at " + NOW.plus(Duration.ofDays(3)));
    assertThatThrownBy(r::siteId)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("EXPIRED");
  }

  @Test
  void tokenUnderAnExpiredKey_isRejectedAsExpired_evenIfItsOwnExpiryWasRewritten() {
    EncryptionKey shortMaster = key(5, EncryptionKey.MASTER_SITE_ID, NOW.plus(Duration.ofHours(1)));
    server.keys = List.of(shortMaster, site1);
    decryptor = server.client().build().tokenDecryptor().clock(clock).scheduler(scheduler).build();
    decryptor.start();
    String token = token(shortMaster, site1, NOW.plus(Duration.ofDays(30)));

    clock.advance(Duration.ofHours(2));

    assertThat(decryptor.decrypt(token).status()).isEqualTo(DecryptionStatus.EXPIRED);
    assertThat(decryptor.decrypt(token).reason()).contains("key");
  }

  @Test
  void everyFlippedCharacter_isRejected() {
    TokenDecryptor d = started();
    String token = token(master1, site1, NOW.plus(Duration.ofDays(3)));
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      char other = alphabet.charAt((alphabet.indexOf(c) + 1) % alphabet.length());
      String tampered = token.substring(0, i) + other + token.substring(i + 1);
      assertThat(d.decrypt(tampered).isSuccess()).as("position %d", i).isFalse();
    }
    assertThat(d.decrypt(token.substring(1)).status()).isEqualTo(DecryptionStatus.MALFORMED);
    assertThat(d.decrypt("").status()).isEqualTo(DecryptionStatus.MALFORMED);
  }

  @Test
  void beforeStart_nothingDecrypts() {
    decryptor = server.client().build().tokenDecryptor().clock(clock).build();

    assertThat(decryptor.decrypt(token(master1, site1, NOW.plusSeconds(60))).status())
        .isEqualTo(DecryptionStatus.NOT_READY);
  }

  @Test
  void afterAFailedStart_decryptSaysWhyNoKeysAreLoaded_notJustToCallStart() {
    decryptor = server.client().build().tokenDecryptor().clock(clock).scheduler(scheduler).build();
    server.script.add(401); // e.g. a key without the ID_READER role

    assertThatThrownBy(decryptor::start).isInstanceOf(VeilApiException.class);
    DecryptionResult r = decryptor.decrypt(token(master1, site1, NOW.plusSeconds(60)));

    assertThat(r.status()).isEqualTo(DecryptionStatus.NOT_READY);
    assertThat(r.reason())
        .isEqualTo("no keys loaded yet: loading them failed: HTTP 401 unknown: scripted 401");
  }

  @Test
  void failedRefresh_keepsThePreviousKeys_andIsReported() {
    TokenDecryptor d = started();
    String token = token(master1, site1, NOW.plus(Duration.ofDays(3)));
    for (int i = 0; i < 4; i++) {
      server.script.add(new IOException("down"));
    }

    scheduler.runPeriodic();

    assertThat(d.lastRefreshFailure()).get().isInstanceOf(VeilTransportException.class);
    assertThat(d.decrypt(token).isSuccess()).isTrue();
  }

  @Test
  void start_failsWhenTheKeysCannotBeLoaded() {
    server.script.add(401);
    decryptor = server.client().build().tokenDecryptor().clock(clock).scheduler(scheduler).build();

    assertThatThrownBy(decryptor::start).isInstanceOf(VeilApiException.class);
    assertThat(scheduler.periodic).isNull();
  }
}
