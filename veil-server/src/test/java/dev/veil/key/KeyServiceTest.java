package dev.veil.key;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.core.token.EncryptionKey;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class KeyServiceTest {
  private final MutableClock clock = MutableClock.at("2026-03-01T00:00:00Z");
  private final InMemoryStores stores = new InMemoryStores();
  private final KeyPolicy policy =
      new KeyPolicy(
          Duration.ofDays(1), Duration.ofHours(1), Duration.ofHours(72), Duration.ofDays(30));
  private final KeyService keys = new KeyService(stores.keys(), policy, clock, new SecureRandom());

  @Test
  void ensureKeysets_createsMasterRefreshAndSiteKeys_activeNow() {
    List<EncryptionKey> created = keys.ensureKeysets(List.of(7));
    assertThat(created)
        .extracting(EncryptionKey::siteId)
        .containsExactlyInAnyOrder(EncryptionKey.MASTER_SITE_ID, EncryptionKey.REFRESH_SITE_ID, 7);
    Instant now = clock.instant();
    assertThat(keys.ring().activeKey(7, now)).isPresent();
    assertThat(keys.ensureKeysets(List.of(7))).isEmpty();
  }

  @Test
  void rotateDue_createsNextKeyWithActivationDelay_andOldKeyStaysUntilThen() {
    keys.ensureKeysets(List.of());
    EncryptionKey first =
        keys.ring().activeKey(EncryptionKey.MASTER_SITE_ID, clock.instant()).orElseThrow();
    clock.advance(Duration.ofHours(22));
    assertThat(keys.rotateDue()).isEmpty();
    clock.advance(Duration.ofHours(1));
    List<EncryptionKey> created = keys.rotateDue();
    assertThat(created).hasSize(2);
    assertThat(keys.ring().activeKey(EncryptionKey.MASTER_SITE_ID, clock.instant()))
        .contains(first);
    clock.advance(Duration.ofHours(1));
    EncryptionKey next =
        keys.ring().activeKey(EncryptionKey.MASTER_SITE_ID, clock.instant()).orElseThrow();
    assertThat(next.id()).isNotEqualTo(first.id());
    // the old key still decrypts for the life of the tokens it protected
    assertThat(keys.ring().byId(first.id())).isEqualTo(first);
    assertThat(first.expires()).isAfter(next.activates().plus(Duration.ofDays(3)));
  }

  @Test
  void refreshKeys_outliveTheRefreshTokensTheyProtect() {
    keys.ensureKeysets(List.of());
    EncryptionKey refresh =
        keys.ring().activeKey(EncryptionKey.REFRESH_SITE_ID, clock.instant()).orElseThrow();
    assertThat(Duration.between(refresh.activates(), refresh.expires()))
        .isGreaterThan(Duration.ofDays(31));
  }

  @Test
  void bidderKeys_neverIncludeRefreshKeys() {
    keys.ensureKeysets(List.of(3));
    assertThat(keys.ring().bidderKeys(clock.instant()))
        .extracting(EncryptionKey::siteId)
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

  @Test
  void rotateDue_onTwoNodesAtTheSameMoment_createsOneKeyPerKeyset() {
    keys.ensureKeysets(List.of(7));
    KeyService other = new KeyService(stores.keys(), policy, clock, new SecureRandom());
    other.catchUp();
    clock.advance(Duration.ofHours(23));
    // The other node rotates between this node's catch-up and its first insert, as if both held the
    // job at once (a lock lost with a database restart, a node resuming from a pause).
    AtomicBoolean raced = new AtomicBoolean();
    stores.beforeEachCall(
        call -> {
          if (call.part() == InMemoryStores.Part.KEYS
              && call.write()
              && raced.compareAndSet(false, true)) {
            assertThat(other.rotateDue()).hasSize(3);
          }
        });

    assertThat(keys.rotateDue()).as("nothing left to create").isEmpty();

    stores.beforeEachCall(null);
    assertThat(keys.ring().size()).isEqualTo(6);
    other.catchUp();
    assertThat(other.ring().all()).isEqualTo(keys.ring().all());
    for (int site : List.of(EncryptionKey.MASTER_SITE_ID, EncryptionKey.REFRESH_SITE_ID, 7)) {
      assertThat(keys.ring().newestKey(site)).isEqualTo(other.ring().newestKey(site));
    }
  }

  @Test
  void ensureKeysets_forANewSiteOnTwoNodes_createsOneKey() {
    keys.ensureKeysets(List.of());
    KeyService other = new KeyService(stores.keys(), policy, clock, new SecureRandom());
    AtomicBoolean raced = new AtomicBoolean();
    stores.beforeEachCall(
        call -> {
          if (call.part() == InMemoryStores.Part.KEYS
              && call.write()
              && raced.compareAndSet(false, true)) {
            other.ensureKeysets(List.of(42));
          }
        });

    assertThat(keys.ensureKeysets(List.of(42))).isEmpty();

    stores.beforeEachCall(null);
    assertThat(keys.ring().activeKey(42, clock.instant())).isPresent();
    assertThat(keys.ring().all()).filteredOn(k -> k.siteId() == 42).hasSize(1);
  }

  @Test
  void catchUp_skipsKeysItHasAlready() {
    keys.ensureKeysets(List.of(5));
    KeyRing before = keys.ring();
    keys.catchUp();
    assertThat(keys.ring()).isSameAs(before);
  }
}
