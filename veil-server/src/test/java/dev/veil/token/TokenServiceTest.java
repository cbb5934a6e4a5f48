package dev.veil.token;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.core.identity.IdentityHash;
import dev.veil.core.identity.IdentityInput;
import dev.veil.server.ServiceGraph;
import dev.veil.server.Services;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.TestConfigs;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class TokenServiceTest {
  private final MutableClock clock = MutableClock.at("2026-05-01T12:00:00Z");
  private final InMemoryStores stores = new InMemoryStores();
  private final Services services =
      ServiceGraph.build(TestConfigs.config(), clock, stores).services();
  private final TokenService tokens = services.tokens();
  private final IdentityHash alice = IdentityHash.parse(IdentityInput.EMAIL, "alice@example.com");

  private IdentityTokens generate(IdentityHash id) {
    return ((GenerateOutcome.Generated) tokens.generate(id, 1, 1)).tokens();
  }

  @Test
  void generate_returnsLifetimesInOrder_andFreshTokensEachTime() {
    IdentityTokens a = generate(alice);
    IdentityTokens b = generate(alice);
    assertThat(a.refreshFrom()).isBefore(a.identityExpires());
    assertThat(a.identityExpires()).isBefore(a.refreshExpires());
    assertThat(a.advertisingToken()).isNotEqualTo(b.advertisingToken());
    assertThat(a.refreshToken()).isNotEqualTo(b.refreshToken());
  }

  @Test
  void refresh_issuesNewPair_untilOptOut_thenOptout() {
    IdentityTokens a = generate(alice);
    RefreshOutcome r = tokens.refresh(a.refreshToken());
    assertThat(r).isInstanceOf(RefreshOutcome.Refreshed.class);
    services.optOuts().record(services.mapper().firstLevelHash(alice));
    assertThat(tokens.refresh(((RefreshOutcome.Refreshed) r).tokens().refreshToken()))
        .isInstanceOf(RefreshOutcome.OptedOut.class);
    assertThat(tokens.refresh(a.refreshToken())).isInstanceOf(RefreshOutcome.OptedOut.class);
    assertThat(tokens.generate(alice, 1, 1)).isInstanceOf(GenerateOutcome.OptedOut.class);
  }

  @Test
  void refresh_afterExpiry_isExpired_andTamperedIsInvalid() {
    IdentityTokens a = generate(alice);
    byte[] raw = Base64.getDecoder().decode(a.refreshToken());
    raw[raw.length - 5] ^= 1;
    assertThat(tokens.refresh(Base64.getEncoder().encodeToString(raw)))
        .isInstanceOf(RefreshOutcome.Invalid.class);
    assertThat(tokens.refresh("")).isInstanceOf(RefreshOutcome.Invalid.class);
    assertThat(tokens.refresh("not a token")).isInstanceOf(RefreshOutcome.Invalid.class);
    clock.advance(Duration.ofDays(30));
    assertThat(tokens.refresh(a.refreshToken())).isInstanceOf(RefreshOutcome.Expired.class);
  }

  @Test
  void testIdentity_validates_andEndsChainOnRefresh() {
    IdentityHash test = IdentityHash.parse(IdentityInput.EMAIL, "validate@example.com");
    IdentityTokens t = generate(test);
    assertThat(tokens.validate(t.advertisingToken(), test)).isTrue();
    assertThat(tokens.validate(t.advertisingToken(), alice)).isFalse();
    assertThat(tokens.validate("garbage", test)).isFalse();
    assertThat(tokens.refresh(t.refreshToken())).isInstanceOf(RefreshOutcome.OptedOut.class);
    IdentityTokens other = generate(alice);
    assertThat(tokens.validate(other.advertisingToken(), alice)).isFalse();
  }

  @Test
  void validate_afterSaltRotation_isFalseForOldToken() {
    IdentityHash test = IdentityHash.parse(IdentityInput.EMAIL, "validate@example.com");
    IdentityTokens t = generate(test);
    clock.advance(Duration.ofSeconds(5));
    services.salts().rotateFraction(1.0);
    assertThat(tokens.validate(t.advertisingToken(), test)).isFalse();
  }
}
