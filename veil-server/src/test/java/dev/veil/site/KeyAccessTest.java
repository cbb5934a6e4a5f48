package dev.veil.site;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ApiClient;
import dev.veil.client.ApiKeyDigest;
import dev.veil.client.Role;
import dev.veil.core.token.EncryptionKey;
import dev.veil.key.KeyRing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyAccessTest {
  private static final Instant NOW = Instant.parse("2025-05-01T00:00:00Z");

  private final KeyRing ring =
      KeyRing.empty()
          .with(
              List.of(
                  key(1, EncryptionKey.MASTER_SITE_ID),
                  key(2, EncryptionKey.REFRESH_SITE_ID),
                  key(3, 10),
                  key(4, 20),
                  key(5, 30),
                  expired(6, 10)));

  @Test
  void byDefault_aBidderReadsEverySite_aSharerOnlyItsOwn_neitherARefreshOrExpiredKey() {
    SiteDirectory sites = SiteDirectory.empty();

    assertThat(ids(client(20, Role.ID_READER), sites)).containsExactly(1, 3, 4, 5);
    assertThat(ids(client(20, Role.SHARER), sites)).containsExactly(1, 4);
  }

  @Test
  void aPermission_namesExactlyTheSitesAndTypesThatMayRead() {
    SiteDirectory sites =
        SiteDirectory.empty()
            .with(
                List.of(
                    site(10, Set.of(), new Sharing(Set.of(20), Set.of())),
                    site(30, Set.of(), new Sharing(Set.of(), Set.of(ParticipantType.DSP))),
                    new Site(40, List.of(), Set.of(ParticipantType.DSP), Optional.empty(), NOW)));

    assertThat(ids(client(20, Role.SHARER), sites)).containsExactly(1, 3, 4);
    assertThat(ids(client(20, Role.ID_READER), sites)).containsExactly(1, 3, 4);
    assertThat(ids(client(40, Role.ID_READER), sites)).containsExactly(1, 4, 5);
    assertThat(ids(client(40, Role.SHARER), sites)).containsExactly(1, 5);
  }

  @Test
  void aDisabledClient_readsOnlyTheMasterAndItsOwnKeys() {
    ApiClient disabled =
        new ApiClient(1, "x", 20, Set.of(Role.ID_READER), false, NOW, digest(), null);
    assertThat(ids(disabled, SiteDirectory.empty())).containsExactly(1, 4);
  }

  private List<Integer> ids(ApiClient caller, SiteDirectory sites) {
    List<Integer> ids = new ArrayList<>();
    KeyAccess.keysFor(caller, ring, sites, NOW).forEach(k -> ids.add(k.id()));
    return ids;
  }

  private static Site site(int siteId, Set<ParticipantType> types, Sharing sharing) {
    return new Site(siteId, List.of(), types, Optional.of(sharing), NOW);
  }

  private static ApiClient client(int siteId, Role role) {
    return new ApiClient(1, "c", siteId, Set.of(role), true, NOW, digest(), null);
  }

  private static ApiKeyDigest digest() {
    return new ApiKeyDigest("k", new byte[16], new byte[32]);
  }

  private static EncryptionKey key(int id, int siteId) {
    return new EncryptionKey(
        id,
        siteId,
        NOW.minusSeconds(60),
        NOW.minusSeconds(60),
        NOW.plus(Duration.ofDays(3)),
        new byte[32]);
  }

  private static EncryptionKey expired(int id, int siteId) {
    return new EncryptionKey(
        id,
        siteId,
        NOW.minus(Duration.ofDays(9)),
        NOW.minus(Duration.ofDays(9)),
        NOW,
        new byte[32]);
  }
}
