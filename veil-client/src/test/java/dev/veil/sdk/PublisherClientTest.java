package dev.veil.sdk;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PublisherClientTest {
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private final FakeVeil server = new FakeVeil(new TestClock(NOW), 4);

  @Test
  void generate_returnsTheTokenPairWithItsTimes() {
    TokenOutcome outcome =
        server.client().build().publisher().generate(Identifier.email("user@example.com"));

    IdentityTokens tokens = outcome.issuedTokens().orElseThrow();
    assertThat(tokens.advertisingToken()).isEqualTo("adv-refresh-of-email");
    assertThat(tokens.refreshToken()).isEqualTo("refresh-of-email");
    assertThat(tokens.identityExpires()).isEqualTo(NOW.plus(Duration.ofDays(3)));
    assertThat(tokens.refreshFrom()).isEqualTo(NOW.plus(Duration.ofHours(1)));
    assertThat(tokens.refreshExpires()).isEqualTo(NOW.plus(Duration.ofDays(30)));
    assertThat(tokens.toString()).doesNotContain("adv-");
    assertThat(new String(server.requests.get(0).body(), UTF_8))
        .isEqualTo("{\"email\":\"user@example.com\"}");
  }

  @Test
  void generate_withHashIdentifiers_sendsTheHashOnly() {
    server
        .client()
        .hashIdentifiers(true)
        .build()
        .publisher()
        .generate(Identifier.phone("+12025550123"));

    assertThat(new String(server.requests.get(0).body(), UTF_8))
        .startsWith("{\"phone_hash\":\"")
        .doesNotContain("2025550123");
  }

  @Test
  void generate_optedOut_isAnOutcome() {
    Identifier gone = Identifier.email("gone@example.com");
    server.optOut(gone);

    assertThat(server.client().build().publisher().generate(gone))
        .isEqualTo(new TokenOutcome.OptedOut());
  }

  @Test
  void generate_invalidIdentifier_isRefusedBeforeSending() {
    PublisherClient publisher = server.client().build().publisher();

    assertThatThrownBy(() -> publisher.generate(Identifier.email("nope")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid email");
    assertThat(server.requests).isEmpty();
  }

  @Test
  void refresh_outcomes() {
    PublisherClient withKey = server.client().build().publisher();
    PublisherClient withoutKey = server.client().apiKey(null).build().publisher();

    assertThat(withKey.refresh("r1").issuedTokens())
        .get()
        .extracting(IdentityTokens::refreshToken)
        .isEqualTo("next-r1");
    assertThat(withKey.refresh("optout")).isEqualTo(new TokenOutcome.OptedOut());
    assertThat(withKey.refresh("expired")).isEqualTo(new TokenOutcome.ExpiredToken());
    assertThat(withKey.refresh("garbage")).isEqualTo(new TokenOutcome.InvalidToken());
    assertThat(withoutKey.refresh("expired")).isEqualTo(new TokenOutcome.InvalidToken());
    assertThat(withoutKey.refresh("r2")).isInstanceOf(TokenOutcome.Issued.class);
  }

  @Test
  void refresh_otherRefusals_areExceptions() {
    server.script.add(401);

    assertThatThrownBy(() -> server.client().build().publisher().refresh("r1"))
        .isInstanceOf(VeilApiException.class);
  }
}
