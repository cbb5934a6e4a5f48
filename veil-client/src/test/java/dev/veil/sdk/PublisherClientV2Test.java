package dev.veil.sdk;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.envelope.EnvelopeSecret;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The publisher client with a client secret: v2's generate and refresh against a fake server. */
class PublisherClientV2Test {
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private final FakeVeil v1 = new FakeVeil(new TestClock(NOW), 4);
  private final FakeVeilV2 server = new FakeVeilV2(v1);

  private IdentityTokens generated(String email) {
    return server
        .client()
        .build()
        .publisher()
        .generate(Identifier.email(email))
        .issuedTokens()
        .orElseThrow();
  }

  @Test
  void generate_sealsTheIdentityWithTheOptOutCheck_andKeepsTheRefreshResponseKey() {
    IdentityTokens tokens = generated("user@example.com");

    assertThat(server.requests)
        .singleElement()
        .extracting(r -> r.pathAndQuery())
        .isEqualTo("/v2/token/generate");
    String sent = new String(server.requests.get(0).body(), US_ASCII);
    assertThat(sent).doesNotContain("user@example.com");
    assertThat(Base64.getDecoder().decode(sent)[0]).isEqualTo((byte) 1);
    assertThat(new String(server.openedPayloads.get(0), UTF_8))
        .isEqualTo("{\"email\":\"user@example.com\",\"optout_check\":1}");
    assertThat(tokens.refreshToken()).isEqualTo("refresh-of-email");
    assertThat(tokens.identityExpires()).isEqualTo(NOW.plus(Duration.ofDays(3)));
    assertThat(tokens.refreshResponseKey()).isEqualTo(FakeVeilV2.responseKeyOf("refresh-of-email"));
    assertThat(tokens.toString()).doesNotContain(tokens.refreshResponseKey());
  }

  @Test
  void aRetriedGenerate_isSealedAgain_withAFreshNonce() {
    v1.script.add(503);

    generated("user@example.com");

    assertThat(server.requests).hasSize(2);
    assertThat(server.requests.get(0).body()).isNotEqualTo(server.requests.get(1).body());
    assertThat(server.openedPayloads.get(0)).isEqualTo(server.openedPayloads.get(1));
  }

  @Test
  void generate_optedOut_isTheSameOutcomeAsOnV1() {
    Identifier gone = Identifier.email("gone@example.com");
    v1.optOut(gone);

    assertThat(server.client().build().publisher().generate(gone))
        .isEqualTo(new TokenOutcome.OptedOut());
  }

  @Test
  void generate_refusal_isAVeilApiException_asOnV1() {
    v1.script.add(401);

    assertThatThrownBy(
            () -> server.client().build().publisher().generate(Identifier.email("a@example.com")))
        .isInstanceOfSatisfying(
            VeilApiException.class, e -> assertThat(e.httpStatus()).isEqualTo(401));
  }

  @Test
  void refresh_sendsTheTokenAsTheBody_andOpensTheAnswerWithTheIdentitysKey() {
    IdentityTokens first = generated("user@example.com");

    TokenOutcome next = server.client().build().publisher().refresh(first);

    assertThat(server.requests.get(1).pathAndQuery()).isEqualTo("/v2/token/refresh");
    assertThat(new String(server.requests.get(1).body(), US_ASCII)).isEqualTo(first.refreshToken());
    IdentityTokens issued = next.issuedTokens().orElseThrow();
    assertThat(issued.refreshToken()).isEqualTo("next-refresh-of-email");
    assertThat(issued.refreshResponseKey())
        .isEqualTo(FakeVeilV2.responseKeyOf("next-refresh-of-email"));
  }

  @Test
  void refresh_outcomes_areThoseOfV1() {
    PublisherClient withKey = server.client().build().publisher();
    PublisherClient withoutKey = server.client().apiKey(null).build().publisher();

    assertThat(withKey.refresh(identity("optout"))).isEqualTo(new TokenOutcome.OptedOut());
    assertThat(withKey.refresh(identity("expired"))).isEqualTo(new TokenOutcome.ExpiredToken());
    assertThat(withKey.refresh(identity("garbage"))).isEqualTo(new TokenOutcome.InvalidToken());
    assertThat(withoutKey.refresh(identity("expired"))).isEqualTo(new TokenOutcome.InvalidToken());
    assertThat(withoutKey.refresh(identity("r2"))).isInstanceOf(TokenOutcome.Issued.class);
  }

  /** An identity of {@code refreshToken} with the fake's response key for it. */
  private static IdentityTokens identity(String refreshToken) {
    return new IdentityTokens(
        "adv", refreshToken, NOW, NOW, NOW, FakeVeilV2.responseKeyOf(refreshToken));
  }

  @Test
  void refresh_ofAStringOrOfAnIdentityWithoutKey_isRefusedBeforeSending() {
    PublisherClient publisher = server.client().build().publisher();
    IdentityTokens fromV1 = new IdentityTokens("adv", "r1", NOW, NOW, NOW);

    assertThatThrownBy(() -> publisher.refresh("r1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("refresh(IdentityTokens)");
    assertThatThrownBy(() -> publisher.refresh(fromV1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no refresh response key");
    assertThat(server.requests).isEmpty();
    assertThat(v1.requests).isEmpty();
  }

  @Test
  void anAnswerSealedUnderAnotherSecret_isATransportFailure_thatShowsNoSecret() {
    byte[] other = new byte[32];
    server.sealWith = EnvelopeSecret.of(other);

    assertThatThrownBy(
            () -> server.client().build().publisher().generate(Identifier.email("a@example.com")))
        .isInstanceOf(VeilTransportException.class)
        .hasMessageContaining("cannot be opened")
        .message()
        .doesNotContain(server.secretBase64);
  }

  @Test
  void aV1Client_refreshesAnIdentityOverV1_byteForByteAsItsToken() {
    PublisherClient v1Publisher = v1.client().build().publisher();

    v1Publisher.refresh(identity("r1"));
    v1Publisher.refresh("r1");

    assertThat(v1.requests).hasSize(2);
    assertThat(v1.requests.get(0).pathAndQuery()).isEqualTo("/v1/token/refresh");
    assertThat(v1.requests.get(0).body()).isEqualTo(v1.requests.get(1).body());
    assertThat(new String(v1.requests.get(0).body(), UTF_8))
        .isEqualTo("{\"refresh_token\":\"r1\"}");
  }

  @Test
  void anIdentityRoundTripsThroughJson_withItsKey() {
    IdentityTokens tokens = generated("user@example.com");
    IdentityTokens fromV1 = new IdentityTokens("adv", "r1", NOW, NOW.plusMillis(1), NOW);

    assertThat(IdentityTokens.fromJson(tokens.toJson())).isEqualTo(tokens);
    assertThat(tokens.toJson()).contains("\"refresh_response_key\":\"");
    assertThat(IdentityTokens.fromJson(fromV1.toJson())).isEqualTo(fromV1);
    assertThat(fromV1.toJson())
        .isEqualTo(
            "{\"advertising_token\":\"adv\",\"refresh_token\":\"r1\",\"identity_expires\":"
                + NOW.toEpochMilli()
                + ",\"refresh_from\":"
                + (NOW.toEpochMilli() + 1)
                + ",\"refresh_expires\":"
                + NOW.toEpochMilli()
                + "}");
  }

  @Test
  void fromJson_ofSomethingElse_quotesNoneOfIt() {
    assertThatThrownBy(() -> IdentityTokens.fromJson("{\"refresh_token\":\"secret-token\"}"))
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .doesNotContain("secret-token");
    assertThatThrownBy(() -> IdentityTokens.fromJson("secret-token"))
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .doesNotContain("secret-token");
  }

  @Test
  void clientSecret_thatIsNotBase64Of32Bytes_isRefusedWithoutRepeatingIt() {
    String short16 = Base64.getEncoder().encodeToString(new byte[16]);

    for (String bad : new String[] {short16, "not base64 at all!", ""}) {
      assertThatThrownBy(() -> VeilClient.builder().clientSecret(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("clientSecret must be standard base64 of 32 bytes")
          .hasNoCause();
    }
    assertThatThrownBy(() -> VeilClient.builder().clientSecret(short16))
        .message()
        .doesNotContain(short16);
  }

  @Test
  void theClientsToString_neverShowsTheSecret() {
    VeilClient client = server.client().build();

    assertThat(client.toString()).doesNotContain(server.secretBase64).endsWith(", v2}");
    assertThat(v1.client().build().toString()).doesNotContain("v2");
  }
}
