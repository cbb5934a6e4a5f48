package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.uid2.client.BidstreamClient;
import com.uid2.client.DecryptionResponse;
import com.uid2.client.DecryptionStatus;
import com.uid2.client.EncryptionDataResponse;
import com.uid2.client.EncryptionStatus;
import com.uid2.client.SharingClient;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.V2Envelope;
import dev.veil.core.token.EncryptionKey;
import dev.veil.http.testing.TestNode;
import dev.veil.site.ParticipantType;
import dev.veil.site.Sharing;
import dev.veil.testing.Http.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v2/key/bidstream} and {@code POST /v2/key/sharing} over real HTTP, read by UID2's
 * own Java SDK: {@code BidstreamClient} decrypts Veil's advertising tokens with the keys it is
 * allowed, and {@code SharingClient} encrypts raw ids on one site for the sites its permission
 * names.
 */
class KeySharingV2IT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EMAIL = "bidder-test@example.com";

  private static TestNode node;
  private static CreatedClient publisher;
  private static CreatedClient bidder;
  private static CreatedClient sender;
  private static CreatedClient receiver;
  private static CreatedClient stranger;

  @BeforeAll
  static void start() {
    // Sharers' tokens live 30 days, as UID2's do; the bid stream's limit stays 72 hours.
    node = TestNode.start(Map.of("token.sharing-lifetime", "30d"));
    // UID2's SDK stamps its envelopes and its tokens with the real time.
    node.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    publisher = node.newClient(Role.GENERATOR);
    bidder = node.newClient(Role.ID_READER);
    sender = node.newClient(Role.SHARER);
    receiver = node.newClient(Role.SHARER);
    stranger = node.newClient(Role.SHARER);
    node.services().keys().ensureKeysets(List.copyOf(node.services().keys().ring().siteIds()));
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @BeforeEach
  void defaultPermissions() {
    for (CreatedClient c : List.of(publisher, bidder, sender, receiver, stranger)) {
      node.services().sites().setSharing(c.client().siteId(), Optional.empty());
      node.services()
          .sites()
          .update(c.client().siteId(), Optional.of(List.of()), Optional.of(Set.of()));
    }
  }

  private static String url() {
    return "http://127.0.0.1:" + node.port();
  }

  private static BidstreamClient bidstream(CreatedClient c) {
    BidstreamClient client =
        new BidstreamClient(url(), c.key().reveal(), c.client().secret().reveal());
    assertThat(client.refresh().isSuccess()).isTrue();
    return client;
  }

  private static SharingClient sharing(CreatedClient c) {
    SharingClient client = new SharingClient(url(), c.key().reveal(), c.client().secret().reveal());
    assertThat(client.refresh().isSuccess()).isTrue();
    return client;
  }

  private static String advertisingToken() {
    return node.get("/v1/token/generate?email=" + EMAIL, publisher.key().reveal())
        .bodyNode()
        .path("advertising_token")
        .asText();
  }

  private static String v1AdvertisingId() {
    return node.get("/v1/identity/map?email=" + EMAIL, node.newApiKey(Role.MAPPER))
        .bodyNode()
        .path("advertising_id")
        .asText();
  }

  @Test
  void bidstreamClient_decryptsAVeilToken_toTheRawIdV1MapsTheEmailTo() {
    DecryptionResponse decrypted =
        bidstream(bidder).decryptTokenIntoRawUid(advertisingToken(), "example.com");

    assertThat(decrypted.getStatus()).isEqualTo(DecryptionStatus.SUCCESS);
    assertThat(decrypted.getUid()).isEqualTo(v1AdvertisingId());
    assertThat(decrypted.getSiteId()).isEqualTo(publisher.client().siteId());
  }

  @Test
  void bidstreamClient_withoutPermission_isNotAuthorizedForTheKey_untilItsTypeIsAllowed() {
    int publisherSite = publisher.client().siteId();
    node.services()
        .sites()
        .setSharing(publisherSite, Optional.of(new Sharing(Set.of(), Set.of(ParticipantType.DSP))));

    assertThat(bidstream(bidder).decryptTokenIntoRawUid(advertisingToken(), null).getStatus())
        .isEqualTo(DecryptionStatus.NOT_AUTHORIZED_FOR_KEY);

    node.services()
        .sites()
        .update(
            bidder.client().siteId(), Optional.empty(), Optional.of(Set.of(ParticipantType.DSP)));
    DecryptionResponse allowed = bidstream(bidder).decryptTokenIntoRawUid(advertisingToken(), null);
    assertThat(allowed.getStatus()).isEqualTo(DecryptionStatus.SUCCESS);
    assertThat(allowed.getUid()).isEqualTo(v1AdvertisingId());
  }

  @Test
  void bidstreamClient_expiredToken_andTokenCreatedTooFarAhead_getUid2sStatuses() {
    BidstreamClient client = bidstream(bidder);
    String token = advertisingToken();
    Instant created = node.clock().instant();

    assertThat(client.decryptTokenIntoRawUid(token, null, created.plus(Duration.ofHours(73))))
        .extracting(DecryptionResponse::getStatus)
        .isEqualTo(DecryptionStatus.EXPIRED_TOKEN);
    // Created more than the allowed 30 minutes after the bidder's "now".
    assertThat(client.decryptTokenIntoRawUid(token, null, created.minus(Duration.ofMinutes(31))))
        .extracting(DecryptionResponse::getStatus)
        .isEqualTo(DecryptionStatus.INVALID_TOKEN_LIFETIME);
    assertThat(client.decryptTokenIntoRawUid(token, null, created.minus(Duration.ofMinutes(29))))
        .extracting(DecryptionResponse::getStatus)
        .isEqualTo(DecryptionStatus.SUCCESS);
  }

  @Test
  void sharedToken_livingLongerThanTheBidStreamAllows_isRefusedByABidder() {
    String rawId = rawId(32);
    EncryptionDataResponse shared = sharing(sender).encryptRawUidIntoToken(rawId);
    assertThat(shared.getStatus()).isEqualTo(EncryptionStatus.SUCCESS);

    assertThat(
            bidstream(bidder).decryptTokenIntoRawUid(shared.getEncryptedData(), null).getStatus())
        .isEqualTo(DecryptionStatus.INVALID_TOKEN_LIFETIME);
  }

  @Test
  void sharingClient_encryptsOnOneSite_aPermittedSiteDecrypts_anotherCannot() {
    node.services()
        .sites()
        .setSharing(
            sender.client().siteId(),
            Optional.of(new Sharing(Set.of(receiver.client().siteId()), Set.of())));
    for (int length : new int[] {32, 33}) {
      String rawId = rawId(length);
      EncryptionDataResponse shared = sharing(sender).encryptRawUidIntoToken(rawId);
      assertThat(shared.getStatus()).isEqualTo(EncryptionStatus.SUCCESS);

      DecryptionResponse received =
          sharing(receiver).decryptTokenIntoRawUid(shared.getEncryptedData());
      assertThat(received.getStatus()).isEqualTo(DecryptionStatus.SUCCESS);
      assertThat(received.getUid()).isEqualTo(rawId);
      assertThat(received.getSiteId()).isEqualTo(sender.client().siteId());

      assertThat(sharing(stranger).decryptTokenIntoRawUid(shared.getEncryptedData()).getStatus())
          .isEqualTo(DecryptionStatus.NOT_AUTHORIZED_FOR_KEY);
    }
  }

  @Test
  void sharingAnswer_carriesTheCallersKeysetsAndLimits_neverARefreshKey() throws IOException {
    JsonNode body = call("/v2/key/sharing", sender).path("body");

    int site = sender.client().siteId();
    assertThat(body.path("caller_site_id").asInt()).isEqualTo(site);
    assertThat(body.path("default_keyset_id").asInt()).isEqualTo(site);
    assertThat(body.path("master_keyset_id").asInt()).isEqualTo(Integer.MAX_VALUE);
    assertThat(body.path("token_expiry_seconds").isTextual()).isTrue();
    assertThat(body.path("token_expiry_seconds").asText()).isEqualTo("2592000");
    assertThat(body.path("max_sharing_lifetime_seconds").asLong()).isEqualTo(2_592_000);
    assertThat(body.path("identity_scope").asText()).isEqualTo("UID2");
    assertThat(body.path("allow_clock_skew_seconds").asLong()).isEqualTo(1800);
    List<Integer> keyIds = new ArrayList<>();
    for (JsonNode key : body.path("keys")) {
      keyIds.add(key.path("id").asInt());
      EncryptionKey stored = node.services().keys().ring().byId(key.path("id").asInt());
      assertThat(stored.siteId()).isNotEqualTo(EncryptionKey.REFRESH_SITE_ID);
      if (stored.siteId() == site) {
        assertThat(key.path("keyset_id").asInt()).isEqualTo(site);
      } else if (stored.siteId() == EncryptionKey.MASTER_SITE_ID) {
        assertThat(key.path("keyset_id").asInt()).isEqualTo(Integer.MAX_VALUE);
      } else {
        assertThat(key.has("keyset_id")).isFalse();
      }
    }
    // A sharer reads no other site's keyset by default.
    assertThat(keyIds)
        .allSatisfy(
            id ->
                assertThat(node.services().keys().ring().byId(id).siteId())
                    .isIn(site, EncryptionKey.MASTER_SITE_ID));
  }

  @Test
  void bidstreamAnswer_listsTheDomainsOfTheSitesWhoseKeysItCarries() throws IOException {
    node.services()
        .sites()
        .update(
            publisher.client().siteId(),
            Optional.of(List.of("News.Example", "com.example.app")),
            Optional.empty());

    JsonNode body = call("/v2/key/bidstream", bidder).path("body");

    assertThat(body.path("max_bidstream_lifetime_seconds").asLong()).isEqualTo(72 * 3600);
    assertThat(body.path("identity_scope").asText()).isEqualTo("UID2");
    assertThat(body.path("allow_clock_skew_seconds").asLong()).isEqualTo(1800);
    assertThat(body.path("site_data").toString())
        .contains(
            "{\"id\":"
                + publisher.client().siteId()
                + ",\"domain_names\":[\"com.example.app\",\"news.example\"]}");
    for (JsonNode key : body.path("keys")) {
      assertThat(key.has("keyset_id")).isFalse();
      assertThat(key.path("secret").asText()).hasSize(44);
    }
  }

  @Test
  void keyEndpoints_refuseCallersWithoutTheRole() {
    Response bidstreamBySharer = node.post("/v2/key/bidstream", sender.key().reveal(), "AAAA");
    assertThat(bidstreamBySharer.code()).isEqualTo(401);
    assertThat(bidstreamBySharer.body()).contains("lacks the ID_READER role");

    Response sharingByPublisher = node.post("/v2/key/sharing", publisher.key().reveal(), "AAAA");
    assertThat(sharingByPublisher.code()).isEqualTo(401);
    assertThat(sharingByPublisher.body()).contains("lacks the ID_READER or SHARER role");
  }

  @Test
  void keyLatest_v1_appliesTheSamePermissions() {
    int publisherSite = publisher.client().siteId();
    String bidderKey = bidder.key().reveal();
    assertThat(siteIds(node.get("/v1/key/latest", bidderKey).bodyNode())).contains(publisherSite);

    node.services().sites().setSharing(publisherSite, Optional.of(new Sharing(Set.of(), Set.of())));

    assertThat(siteIds(node.get("/v1/key/latest", bidderKey).bodyNode()))
        .doesNotContain(publisherSite)
        .contains(EncryptionKey.MASTER_SITE_ID);
  }

  private static List<Integer> siteIds(JsonNode latest) {
    List<Integer> ids = new ArrayList<>();
    latest.forEach(k -> ids.add(k.path("site_id").asInt()));
    return ids;
  }

  /** Base64 of {@code length} random bytes. */
  private static String rawId(int length) {
    byte[] id = new byte[length];
    new SecureRandom().nextBytes(id);
    id[0] &= 0x3f; // an email id: UID2's SDK reads the identity type from the first character
    return Base64.getEncoder().encodeToString(id);
  }

  /** Sends an empty payload sealed with {@code client}'s secret; returns the opened answer. */
  private static JsonNode call(String path, CreatedClient client) throws IOException {
    EnvelopeSecret key = client.client().secret().envelopeKey();
    long nonce = 0x0102_0304_0506_0708L;
    byte[] sealed =
        V2Envelope.BASE64.sealRequest(
            new byte[0], nonce, key, node.clock().instant(), NonceSource.secure());
    Response r =
        node.post(path, client.key().reveal(), new String(sealed, StandardCharsets.US_ASCII));
    assertThat(r.code()).as(r.body()).isEqualTo(200);
    return JSON.readTree(
        V2Envelope.BASE64
            .openResponse(r.body().getBytes(StandardCharsets.US_ASCII), key, nonce)
            .payloadBytes());
  }
}
