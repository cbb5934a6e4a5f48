package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.http.testing.TestNode;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.IdentityTokens;
import dev.veil.sdk.PublisherClient;
import dev.veil.sdk.TokenOutcome;
import dev.veil.sdk.VeilApiException;
import dev.veil.sdk.VeilClient;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Veil's own Java client given a client secret, against a real node over HTTP: v2's generate and
 * refresh give the outcomes v1 gives, with the advertising ids of v1's map. The node's clock is the
 * real time, as the client stamps its envelopes with it.
 */
class PublisherClientV2IT {
  private static TestNode veil;
  private static TestNode uid2;
  private static CreatedClient generator;

  @BeforeAll
  static void start() {
    veil = TestNode.start();
    uid2 = TestNode.start(Map.of("api.profile", "uid2"));
    atRealTime(veil);
    atRealTime(uid2);
    generator = veil.newClient(Role.GENERATOR);
  }

  @AfterAll
  static void stop() {
    veil.close();
    uid2.close();
  }

  /** Moves the node's clock to the real time and gives every keyset a key active then. */
  private static void atRealTime(TestNode node) {
    node.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    node.services().keys().ensureKeysets(List.copyOf(node.services().keys().ring().siteIds()));
  }

  private static PublisherClient publisher(TestNode node, CreatedClient client) {
    return VeilClient.builder()
        .baseUrl("http://127.0.0.1:" + node.port())
        .apiKey(client.key().reveal())
        .clientSecret(client.client().secret().reveal())
        .build()
        .publisher();
  }

  private static IdentityTokens generated(PublisherClient publisher, String email) {
    return publisher.generate(Identifier.email(email)).issuedTokens().orElseThrow();
  }

  /** The advertising id inside {@code token}, decrypted with the node's keys (base64). */
  private static String advertisingId(String token) {
    byte[] id =
        new AdvertisingTokenCodec(NonceSource.secure())
            .decode(token, veil.services().keys().ring())
            .advertisingId();
    return Base64.getEncoder().encodeToString(id);
  }

  private static String v1AdvertisingId(String email) {
    return veil.get("/v1/identity/map?email=" + email, veil.newApiKey(Role.MAPPER))
        .bodyNode()
        .path("advertising_id")
        .asText();
  }

  @Test
  void generate_andTwoRefreshes_overV2_carryV1sAdvertisingId_andANewResponseKeyEachTime() {
    PublisherClient publisher = publisher(veil, generator);

    IdentityTokens first = generated(publisher, "client-v2@example.com");
    IdentityTokens second = publisher.refresh(first).issuedTokens().orElseThrow();
    IdentityTokens third = publisher.refresh(second).issuedTokens().orElseThrow();

    String expected = v1AdvertisingId("client-v2@example.com");
    for (IdentityTokens t : List.of(first, second, third)) {
      assertThat(advertisingId(t.advertisingToken())).isEqualTo(expected);
      assertThat(Base64.getDecoder().decode(t.refreshResponseKey())).hasSize(32);
    }
    assertThat(List.of(first, second, third))
        .extracting(IdentityTokens::refreshResponseKey)
        .doesNotHaveDuplicates();
    assertThat(first.identityExpires()).isAfter(veil.clock().instant());
  }

  @Test
  void anIdentityStoredAsJson_refreshesOverV2() {
    PublisherClient publisher = publisher(veil, generator);
    String stored = generated(publisher, "stored@example.com").toJson();

    TokenOutcome next = publisher.refresh(IdentityTokens.fromJson(stored));

    assertThat(next).isInstanceOf(TokenOutcome.Issued.class);
  }

  @Test
  void optOuts_areTheOutcomesOfV1() {
    PublisherClient publisher = publisher(veil, generator);
    assertThat(
            veil.post(
                    "/v1/optout",
                    veil.newApiKey(Role.OPTOUT),
                    "{\"email\":\"gone-v2@example.com\"}")
                .code())
        .isEqualTo(200);

    assertThat(publisher.generate(Identifier.email("gone-v2@example.com")))
        .isEqualTo(new TokenOutcome.OptedOut());
    // In the veil profile the validate identity's tokens refresh to an opt-out, as on v1.
    assertThat(publisher.refresh(generated(publisher, "validate@example.com")))
        .isEqualTo(new TokenOutcome.OptedOut());
  }

  @Test
  void inTheUid2Profile_uid2sOptOutIdentity_isOptedOut() {
    PublisherClient publisher = publisher(uid2, uid2.newClient(Role.GENERATOR));

    assertThat(publisher.generate(Identifier.email("optout@example.com")))
        .isEqualTo(new TokenOutcome.OptedOut());
    assertThat(publisher.refresh(generated(publisher, "refresh-optout@example.com")))
        .isEqualTo(new TokenOutcome.OptedOut());
  }

  @Test
  void anAlteredToken_isInvalid_andAnExpiredOne_isExpired_withTheKey() {
    TestNode node = TestNode.start();
    try {
      atRealTime(node);
      CreatedClient client = node.newClient(Role.GENERATOR);
      PublisherClient publisher = publisher(node, client);
      IdentityTokens tokens = generated(publisher, "expiring@example.com");
      char[] chars = tokens.refreshToken().toCharArray();
      chars[40] = chars[40] == 'A' ? 'B' : 'A';
      IdentityTokens altered =
          new IdentityTokens(
              tokens.advertisingToken(),
              new String(chars),
              tokens.identityExpires(),
              tokens.refreshFrom(),
              tokens.refreshExpires(),
              tokens.refreshResponseKey());

      assertThat(publisher.refresh(altered)).isEqualTo(new TokenOutcome.InvalidToken());
      node.clock().advance(Duration.ofDays(31));
      assertThat(publisher.refresh(tokens)).isEqualTo(new TokenOutcome.ExpiredToken());
    } finally {
      node.close();
    }
  }

  @Test
  void refusals_areTheServersAnswers() {
    CreatedClient mapper = veil.newClient(Role.MAPPER);
    CreatedClient other = veil.newClient(Role.GENERATOR);
    PublisherClient wrongSecret =
        VeilClient.builder()
            .baseUrl("http://127.0.0.1:" + veil.port())
            .apiKey(generator.key().reveal())
            .clientSecret(other.client().secret().reveal())
            .build()
            .publisher();

    assertThatThrownBy(() -> publisher(veil, mapper).generate(Identifier.email("a@example.com")))
        .isInstanceOfSatisfying(
            VeilApiException.class,
            e -> {
              assertThat(e.httpStatus()).isEqualTo(401);
              assertThat(e.serverMessage()).contains("GENERATOR");
            });
    assertThatThrownBy(() -> wrongSecret.generate(Identifier.email("a@example.com")))
        .isInstanceOfSatisfying(
            VeilApiException.class,
            e -> {
              assertThat(e.httpStatus()).isEqualTo(400);
              assertThat(e.serverMessage()).contains("ClientSecret");
            });
  }
}
