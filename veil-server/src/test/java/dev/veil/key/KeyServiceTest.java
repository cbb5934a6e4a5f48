package dev.veil.key;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.core.token.EncryptionKey;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyServiceTest {
  private final MutableClock clock = MutableClock.at("2026-03-01T00:00:00Z");
  private final InMemoryStores stores = new InMemoryStores();
  private final KeyPolicy policy =
      new KeyPolicy(Duration.ofDays(1), Duration.ofHours(1), Duration.ofHours(72), Duration.ofDays(30));
  private final KeyService keys = new KeyService(stores.keys(), policy, clock, new SecureRandom());

  @Test
  void ensureKeysets_createsMasterRefreshAndSiteKeys_activeNow() {
    List<EncryptionKey> created = keys.ensureKeysets(List.of(7));
    assertThat(created).extracting(EncryptionKey::siteId)
        .containsExactlyInAnyOrder(EncryptionKey.MASTER_SITE_ID, EncryptionKey.REFRESH_SITE_ID, 7);
    Instant now = clock.instant();
    assertThat(keys.ring().activeKey(7, now)).isPresent();
    assertThat(keys.ensureKeysets(List.of(7))).isEmpty();
  }

  @Test
  void rotateDue_createsNextKeyWithActivationDelay_andOldKeyStaysUntilThen() {
    keys.ensureKeysets(List.of());
    EncryptionKey first = keys.ring().activeKey(EncryptionKey.MASTER_SITE_ID, clock.instant()).orElseThrow();
    clock.advance(Duration.ofHours(22));
    assertThat(keys.rotateDue()).isEmpty();
    clock.advance(Duration.ofHours(1));
    List<EncryptionKey> created = keys.rotateDue();
    assertThat(created).hasSize(2);
    assertThat(keys.ring().activeKey(EncryptionKey.MASTER_SITE_ID, clock.instant())).contains(first);
    clock.advance(Duration.ofHours(1));
    EncryptionKey next = keys.ring().activeKey(EncryptionKey.MASTER_SITE_ID, clock.instant()).orElseThrow();
    assertThat(next.id()).isNotEqualTo(first.id());
    // the old key still decrypts for the life of the tokens it protected
    assertThat(keys.ring().byId(first.id())).isEqualTo(first);
    assertThat(first.expires()).isAfter(next.activates().plus(Duration.ofHours(72)));
  }

  @Test
  void refreshKeys_outliveTheRefreshTokensTheyProtect() {
    keys.ensureKeysets(List.of());
    EncryptionKey refresh = keys.ring().activeKey(EncryptionKey.REFRESH_SITE_ID, clock.instant()).orElseThrow();
    assertThat(Duration.between(refresh.activates(), refresh.expires())).isGreaterThan(Duration.ofDays(31));
  }

  @Test
  void bidderKeys_neverIncludeRefreshKeys() {
    keys.ensureKeysets(List.of(3));
    assertThat(keys.ring().bidderKeys(clock.instant())).extracting(EncryptionKey::siteId)
        .containsExactlyInAnyOrder(EncryptionKey.MASTER_SITE_ID, 3);
  }

  @Test
  void anotherNode_learnsKeys_onCatchUp() {
    keys.ensureKeysets(List.of(5));
    KeyService other = new KeyService(stores.keys(), policy, clock, new SecureRandom());
    assertThat(other.ring().size()).isZero();
    other.catchUp();
    assertThat(other.ring().all()).isEqualTo(keys.ring().all());
  }
}
