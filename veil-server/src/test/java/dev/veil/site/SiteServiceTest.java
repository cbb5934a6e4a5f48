package dev.veil.site;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.common.VeilException;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SiteServiceTest {
  private final InMemoryStores stores = new InMemoryStores();
  private final MutableClock clock = new MutableClock(Instant.parse("2025-05-01T00:00:00Z"));
  private final SiteService sites = new SiteService(stores.sites(), clock);

  @Test
  void update_normalizesNames_andKeepsWhatIsNotGiven() {
    sites.update(5, Optional.empty(), Optional.of(Set.of(ParticipantType.DSP)));
    Site site =
        sites.update(
            5,
            Optional.of(List.of(" News.Example ", "news.example", "123456789")),
            Optional.empty());

    assertThat(site.domainNames()).containsExactly("123456789", "news.example");
    assertThat(site.types()).containsExactly(ParticipantType.DSP);
    assertThat(sites.directory().site(5)).isEqualTo(site);
  }

  @Test
  void update_refusesNamesThatAreNeitherDomainsNorAppIds_withoutEchoingControlCharacters() {
    for (String bad : List.of("", "a b", "-x.com", "x..com", "x.com/", "é.com", "x\u0000y")) {
      assertThatThrownBy(() -> sites.update(5, Optional.of(List.of(bad)), Optional.empty()))
          .as(bad)
          .isInstanceOf(VeilException.class)
          .hasMessageContaining("invalid domain or app name")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\u0000"));
    }
    assertThat(sites.directory().all()).isEmpty();
  }

  @Test
  void update_refusesTooManyNames_andNonPositiveSites() {
    List<String> many = Collections.nCopies(SiteService.MAX_DOMAIN_NAMES + 1, "a.example");
    assertThatThrownBy(() -> sites.update(5, Optional.of(many), Optional.empty()))
        .hasMessageContaining("at most 1000");
    assertThatThrownBy(() -> sites.update(0, Optional.empty(), Optional.of(Set.of())))
        .hasMessageContaining("site id must be positive");
    assertThatThrownBy(() -> sites.setSharing(-1, Optional.empty()))
        .hasMessageContaining("site id must be positive");
  }

  @Test
  void setSharing_refusesNonPositiveAllowedSites_andResetsToTheDefault() {
    assertThatThrownBy(() -> sites.setSharing(5, Optional.of(new Sharing(Set.of(0), Set.of()))))
        .hasMessageContaining("allowed site ids must be positive");

    sites.setSharing(5, Optional.of(new Sharing(Set.of(6), Set.of())));
    assertThat(sites.directory().site(5).sharing()).isPresent();
    sites.setSharing(5, Optional.empty());
    assertThat(sites.directory().site(5).sharing()).isEmpty();
  }

  @Test
  void catchUp_bringsInWhatAnotherNodeWrote() {
    SiteService other = new SiteService(stores.sites(), clock);
    other.setSharing(8, Optional.of(new Sharing(Set.of(), Set.of(ParticipantType.ADVERTISER))));

    assertThat(sites.directory().site(8).sharing()).isEmpty();
    sites.catchUp();
    assertThat(sites.directory().site(8).sharing())
        .contains(new Sharing(Set.of(), Set.of(ParticipantType.ADVERTISER)));
  }
}
