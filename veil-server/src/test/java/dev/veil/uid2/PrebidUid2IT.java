package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.uid2.client.IdentityTokens;
import com.uid2.client.PublisherUid2Client;
import com.uid2.client.TokenGenerateInput;
import com.uid2.client.TokenGenerateResponse;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.http.testing.TestNode;
import dev.veil.observability.RequestMetrics;
import dev.veil.testing.Browser;
import dev.veil.testing.PrebidBundle;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Prebid.js's UID2 user-id module ({@code uid2IdSystem} of npm {@code prebid.js}, bundled from
 * {@code tools/prebid}) in a real headless Chromium, pointed ({@code uid2ApiBase}) at a Veil node
 * in the uid2 profile ({@link TestNode}: the production HTTP server on 127.0.0.1): the page ({@link
 * PublisherSite}, another origin) hands the module an identity that UID2's Java SDK got from Veil's
 * {@code /v2/token/generate}, already due for refresh; the module refreshes it through {@code
 * /v2/token/refresh} (a real cross-origin call, preflight included, whose answer it decrypts with
 * the {@code refresh_response_key}), and an auction shows what bidders get. The evidence is what
 * crossed the wire: Veil's request counters and the bid request's body as the site received it.
 *
 * <p>No waiting on time: the node's clock stands {@link #DUE_BY} behind when it issues, so the
 * identity's {@code refresh_from} has passed by the real clock the page reads.
 */
class PrebidUid2IT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long after issue Veil's tokens are due for refresh here. */
  private static final Duration REFRESH_FROM = Duration.ofSeconds(30);

  /**
   * How far the clock stands behind when it issues: past {@link #REFRESH_FROM}, well within the v2
   * envelope's window (UID2's SDK stamps its requests with the real time).
   */
  private static final Duration DUE_BY = REFRESH_FROM.multipliedBy(2);

  /** Where the module keeps its identity, in the page's localStorage. */
  private static final String MODULE_STORAGE = "__uid2_advertising_token";

  private static TestNode veil;
  private static CreatedClient generator;
  private static PublisherSite site;
  private static Browser browser;

  @BeforeAll
  static void start() {
    Browser.assumeAvailable();
    site = PublisherSite.start(PrebidBundle.build());
    veil =
        TestNode.start(
            Map.of("api.profile", "uid2", "token.refresh-from", REFRESH_FROM.toSeconds() + "s"));
    // Keys active from the earliest time the tests issue at.
    veil.clock().set(Instant.now().minus(DUE_BY).truncatedTo(ChronoUnit.MILLIS));
    generator = veil.newClient(Role.GENERATOR);
    veil.services().keys().ensureKeysets(List.copyOf(veil.services().keys().ring().siteIds()));
    browser = Browser.start();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (veil != null) {
      veil.close();
    }
    if (site != null) {
      site.close();
    }
  }

  @BeforeEach
  void freshBrowser() {
    browser.reset(List.of(site.origin(), apiBase()));
    site.forgetBidRequests();
  }

  @Test
  void anIdentityDueForRefresh_isRefreshedThroughVeil_andTheBidRequestCarriesTheNewToken()
      throws IOException {
    IdentityTokens issued = issueDueForRefresh("prebid-user@example.com");
    long refreshesBefore = refreshes().count(200);
    long preflightsBefore = preflights().count(204);

    Map<String, Object> result = runAuction(issued);

    // One refresh crossed the wire, after a CORS preflight (the module sends its version header).
    assertThat(refreshes().count(200)).as("%s", outcome(result)).isEqualTo(refreshesBefore + 1);
    assertThat(preflights().count(204)).isEqualTo(preflightsBefore + 1);
    // The module opened Veil's sealed answer and keeps the new identity beside the one it got.
    JsonNode stored = moduleStorage();
    String refreshed = stored.path("latestToken").path("advertising_token").asText();
    assertThat(refreshed).isNotEmpty().isNotEqualTo(issued.getAdvertisingToken());
    assertThat(stored.path("latestToken").path("refresh_response_key").asText()).isNotEmpty();
    assertThat(stored.path("originalToken").path("advertising_token").asText())
        .isEqualTo(issued.getAdvertisingToken());
    // The bidder was given the refreshed token, as UID2's eid.
    JsonNode bidRequest = onlyBidRequest();
    assertThat(uid2Ids(bidRequest.path("user").path("ext").path("eids")))
        .containsExactly(refreshed);
    assertThat(uid2Ids(bidRequest.path("userIdAsEids"))).containsExactly(refreshed);
    // Veil reads the new token as the same person's.
    assertThat(advertisingId(refreshed)).isEqualTo(advertisingId(issued.getAdvertisingToken()));
  }

  @Test
  void anIdentityWhoseRefreshIsOptedOut_endsTheChain_andTheBidRequestCarriesNoUid2()
      throws IOException {
    // uid2 profile: this test identity gets tokens, and their refresh answers optout.
    IdentityTokens issued = issueDueForRefresh("refresh-optout@example.com");
    long refreshesBefore = refreshes().count(200);

    Map<String, Object> result = runAuction(issued);

    assertThat(refreshes().count(200)).as("%s", outcome(result)).isEqualTo(refreshesBefore + 1);
    // The module read Veil's sealed optout answer: it stores the optout and holds no token.
    JsonNode stored = moduleStorage();
    assertThat(stored.path("latestToken").asText()).isEqualTo("optout");
    assertThat(JSON.readTree((String) result.get("userIds")).path("uid2"))
        .isEqualTo(JSON.readTree("{\"optout\":true}"));
    JsonNode bidRequest = onlyBidRequest();
    assertThat(sources(bidRequest.path("user").path("ext").path("eids")))
        .doesNotContain("uidapi.com");
    assertThat(sources(bidRequest.path("userIdAsEids"))).doesNotContain("uidapi.com");
  }

  private static String apiBase() {
    return "http://127.0.0.1:" + veil.port();
  }

  /**
   * An identity for {@code email} from {@code /v2/token/generate} through UID2's SDK, issued while
   * the clock stands {@link #DUE_BY} behind; the clock is back at the real time on return.
   */
  private static IdentityTokens issueDueForRefresh(String email) {
    veil.clock().set(Instant.now().minus(DUE_BY).truncatedTo(ChronoUnit.MILLIS));
    TokenGenerateResponse generated;
    try {
      generated =
          new PublisherUid2Client(
                  apiBase(), generator.key().reveal(), generator.client().secret().reveal())
              .generateTokenResponse(TokenGenerateInput.fromEmail(email));
    } finally {
      veil.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    }
    assertThat(generated.isSuccess()).isTrue();
    IdentityTokens identity = generated.getIdentity();
    assertThat(identity.isDueForRefresh()).as("refresh_from has passed").isTrue();
    assertThat(identity.isRefreshable()).as("refresh_expires has not").isTrue();
    return identity;
  }

  /**
   * Opens the site and runs one auction with {@code identity} (the generate answer's body, with its
   * {@code refresh_response_key}, as the publisher's server hands it to the page).
   */
  private static Map<String, Object> runAuction(IdentityTokens identity) throws IOException {
    Map<String, Object> token =
        JSON.readValue(identity.getJsonString(), new TypeReference<Map<String, Object>>() {});
    assertThat(token).containsKey("refresh_response_key");
    browser.open(site.origin() + "/");
    return browser.jsAsync(
        "const done = arguments[arguments.length - 1];"
            + "window.runAuction(arguments[0], arguments[1])"
            + ".then(done, e => done({error: '' + e}));",
        apiBase(),
        token);
  }

  /**
   * What the auction ended with, for an assertion's message: the page's error, or which fields of
   * UID2's id Prebid held ({@code [id]}, {@code [optout]}), never a token.
   */
  private static String outcome(Map<String, Object> result) throws IOException {
    if (result.get("error") != null) {
      return "the page failed: " + result.get("error");
    }
    List<String> fields = new ArrayList<>();
    JSON.readTree((String) result.get("userIds"))
        .path("uid2")
        .fieldNames()
        .forEachRemaining(fields::add);
    return "the auction ended with UID2 fields " + fields;
  }

  /** What the module keeps in the page's localStorage. */
  private static JsonNode moduleStorage() throws IOException {
    String stored = browser.js("return localStorage.getItem(arguments[0]);", MODULE_STORAGE);
    assertThat(stored).as("the module's storage").isNotNull();
    return JSON.readTree(stored);
  }

  private static RequestMetrics refreshes() {
    return veil.metrics().httpRequests("/v2/token/refresh", "POST");
  }

  private static RequestMetrics preflights() {
    return veil.metrics().httpRequests("/v2/token/refresh", "OPTIONS");
  }

  private static JsonNode onlyBidRequest() throws IOException {
    List<String> received = site.bidRequests();
    assertThat(received).as("bid requests the site received").hasSize(1);
    return JSON.readTree(received.get(0));
  }

  /** The ids of UID2's eids ({@code source: uidapi.com}, each {@code atype} 3) in {@code eids}. */
  private static List<String> uid2Ids(JsonNode eids) {
    List<String> ids = new ArrayList<>();
    for (JsonNode eid : eids) {
      if (eid.path("source").asText().equals("uidapi.com")) {
        for (JsonNode uid : eid.path("uids")) {
          assertThat(uid.path("atype").asInt()).as("%s", eid).isEqualTo(3);
          ids.add(uid.path("id").asText());
        }
      }
    }
    return ids;
  }

  private static List<String> sources(JsonNode eids) {
    assertThat(eids.isArray()).as("%s", eids).isTrue();
    List<String> sources = new ArrayList<>();
    eids.forEach(eid -> sources.add(eid.path("source").asText()));
    return sources;
  }

  /** The advertising id inside {@code token}, decrypted with the node's keys (base64). */
  private static String advertisingId(String token) {
    byte[] id =
        new AdvertisingTokenCodec(NonceSource.secure())
            .decode(token, veil.services().keys().ring())
            .advertisingId();
    return Base64.getEncoder().encodeToString(id);
  }
}
