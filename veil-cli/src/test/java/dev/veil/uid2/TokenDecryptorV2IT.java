package dev.veil.uid2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.uid2.client.SharingClient;
import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.config.ConfigLoader;
import dev.veil.config.VeilConfig;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.OperatorInfo;
import dev.veil.core.token.PublisherInfo;
import dev.veil.http.testing.TestNode;
import dev.veil.key.KeyRing;
import dev.veil.sdk.DecryptionResult;
import dev.veil.sdk.DecryptionStatus;
import dev.veil.sdk.TokenDecryptor;
import dev.veil.sdk.VeilClient;
import dev.veil.server.VeilServer;
import dev.veil.testing.AdminCli;
import dev.veil.testing.CliRun;
import dev.veil.testing.Http;
import dev.veil.testing.MutableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Veil's own {@code TokenDecryptor} and {@code veil decrypt} given a client secret, against a real
 * node (HTTP and the admin gRPC port on loopback, its clock at the real time, as the client stamps
 * its envelopes with it): keys from {@code /v2/key/bidstream}, the sites' permissions and domain
 * names set through the admin API, and the server's lifetime limits; and a token that UID2's own
 * SDK shared, read by Veil's client.
 */
class TokenDecryptorV2IT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static MutableClock clock;
  private static VeilServer server;
  private static Http http;
  private static String adminKey;
  private static CreatedClient bidder;
  private static String mapperKey;

  @BeforeAll
  static void start() {
    clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    VeilConfig config =
        ConfigLoader.load(
            null,
            Map.of(),
            Map.of(
                "http.port", "0",
                "grpc.port", "0",
                "console.port", "0",
                "data.dir", dir.resolve("data").toString(),
                // The bidder limits of the v2 key answer: max_bidstream_lifetime_seconds is the
                // advertising token lifetime, allow_clock_skew_seconds the allowed skew.
                "token.advertising-lifetime", "72h",
                "token.allowed-clock-skew", "10m"));
    server = VeilServer.start(config, clock);
    http = new Http(url());
    adminKey = server.bootstrapAdminKey().orElseThrow();
    bidder = client("bidder", Role.ID_READER);
    mapperKey = client("mapper", Role.MAPPER).key().reveal();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String url() {
    return "http://127.0.0.1:" + server.httpPort();
  }

  private static CreatedClient client(String name, Role role) {
    return server.services().clients().create(name, 0, Set.of(role));
  }

  private static TokenDecryptor decryptor() {
    TokenDecryptor decryptor =
        VeilClient.builder()
            .baseUrl(url())
            .apiKey(bidder.key().reveal())
            .clientSecret(bidder.client().secret().reveal())
            .build()
            .tokenDecryptor()
            .clock(clock)
            .build();
    decryptor.refreshKeys();
    return decryptor;
  }

  /** {@code veil admin ARGS} through the admin gRPC port; fails unless it succeeds. */
  private static void admin(String... args) {
    AdminCli.Result r = AdminCli.run(server.grpcPort(), adminKey, args);
    assertThat(r.exitCode()).as(r.out()).isZero();
  }

  /** A publisher with a site of its own, and the advertising token it gets for {@code email}. */
  private record Publisher(int siteId, String token) {}

  private static Publisher publisher(String email) {
    CreatedClient publisher = client("publisher " + email, Role.GENERATOR);
    String token =
        http.post("/v1/token/generate", publisher.key().reveal(), "{\"email\":\"" + email + "\"}")
            .successBody()
            .path("advertising_token")
            .asText();
    return new Publisher(publisher.client().siteId(), token);
  }

  private static String v1AdvertisingId(String email) {
    return http.identityMap(mapperKey, "email", List.of(email)).get(email)[0];
  }

  @Test
  void aVeilToken_decryptsToTheAdvertisingIdV1MapsTheEmailTo() {
    Publisher publisher = publisher("bid-v2@example.com");

    try (TokenDecryptor decryptor = decryptor()) {
      DecryptionResult r = decryptor.decrypt(publisher.token());

      assertThat(r.status()).isEqualTo(DecryptionStatus.SUCCESS);
      assertThat(r.advertisingId()).isEqualTo(v1AdvertisingId("bid-v2@example.com"));
      assertThat(r.siteId()).isEqualTo(publisher.siteId());
    }
  }

  @Test
  void aSiteThatSharesWithDspsOnly_withholdsItsKey_fromABidderOfNoType() {
    Publisher publisher = publisher("withheld@example.com");
    admin("sites", "share", Integer.toString(publisher.siteId()), "--types", "DSP");

    try (TokenDecryptor decryptor = decryptor()) {
      assertThat(decryptor.decrypt(publisher.token()).status())
          .isEqualTo(DecryptionStatus.NOT_AUTHORIZED_FOR_KEY);
    } finally {
      admin("sites", "share", Integer.toString(publisher.siteId()), "--default");
    }
    try (TokenDecryptor decryptor = decryptor()) {
      assertThat(decryptor.decrypt(publisher.token()).isSuccess()).isTrue();
    }
  }

  @Test
  void tokensBreakingTheServersLimits_haveAnInvalidLifetime() {
    int site = publisher("limits@example.com").siteId();
    Instant now = clock.instant();
    String atTheLimit = crafted(site, now, now.plus(Duration.ofDays(3)));
    String tooLong = crafted(site, now, now.plus(Duration.ofDays(3)).plusSeconds(1));
    String aheadOfTheSkew = crafted(site, now.plus(Duration.ofMinutes(11)), now.plusSeconds(7200));
    String withinTheSkew = crafted(site, now.plus(Duration.ofMinutes(9)), now.plusSeconds(7200));

    try (TokenDecryptor decryptor = decryptor()) {
      assertThat(decryptor.decrypt(atTheLimit).status()).isEqualTo(DecryptionStatus.SUCCESS);
      assertThat(decryptor.decrypt(tooLong).status())
          .isEqualTo(DecryptionStatus.INVALID_TOKEN_LIFETIME);
      assertThat(decryptor.decrypt(aheadOfTheSkew).status())
          .isEqualTo(DecryptionStatus.INVALID_TOKEN_LIFETIME);
      assertThat(decryptor.decrypt(withinTheSkew).status()).isEqualTo(DecryptionStatus.SUCCESS);
    }
  }

  /** A token of site {@code siteId} sealed with the node's active keys, with the given times. */
  private static String crafted(int siteId, Instant created, Instant expires) {
    Instant now = clock.instant();
    KeyRing ring = server.services().keys().ring();
    EncryptionKey master = ring.activeKey(EncryptionKey.MASTER_SITE_ID, now).orElseThrow();
    EncryptionKey siteKey = ring.activeKey(siteId, now).orElseThrow();
    AdvertisingTokenPayload p =
        new AdvertisingTokenPayload(
            IdentityType.EMAIL,
            expires,
            created,
            new OperatorInfo(1, (byte) 1, 1, 1),
            new PublisherInfo(siteId, 0, 0),
            0,
            created,
            created,
            new byte[AdvertisingTokenPayload.ADVERTISING_ID_BYTES]);
    return new AdvertisingTokenCodec(NonceSource.secure()).encode(p, master, siteKey);
  }

  @Test
  void theDomainCheck_passesForANameTheSiteWasGiven_andFailsForAnother() {
    Publisher publisher = publisher("domains@example.com");
    Publisher nameless = publisher("nameless@example.com");
    admin(
        "sites",
        "set",
        Integer.toString(publisher.siteId()),
        "--domains",
        "news.example,com.example.app");

    try (TokenDecryptor decryptor = decryptor()) {
      assertThat(decryptor.decrypt(publisher.token(), "NEWS.example").isSuccess()).isTrue();
      assertThat(decryptor.decrypt(publisher.token(), "com.example.app").isSuccess()).isTrue();
      assertThat(decryptor.decrypt(publisher.token(), "other.example").status())
          .isEqualTo(DecryptionStatus.DOMAIN_OR_APP_NAME_CHECK_FAILED);
      assertThat(decryptor.decrypt(nameless.token(), "news.example").status())
          .isEqualTo(DecryptionStatus.DOMAIN_OR_APP_NAME_CHECK_FAILED);
      assertThat(decryptor.decrypt(nameless.token()).isSuccess()).isTrue();
    }
  }

  @Test
  void veilDecrypt_withTheSecret_checksTheDomain_andSaysSoInTextAndJson() throws IOException {
    Publisher publisher = publisher("cli-v2@example.com");
    admin("sites", "set", Integer.toString(publisher.siteId()), "--domains", "cli.example");
    String key = bidder.key().reveal();
    String secret = bidder.client().secret().reveal();

    CliRun passes =
        CliRun.of(
            "decrypt",
            publisher.token(),
            "--url",
            url(),
            "--api-key",
            key,
            "--client-secret",
            secret,
            "--domain",
            "cli.example",
            "--json");
    CliRun fails =
        CliRun.of(
            "decrypt",
            publisher.token(),
            "--url",
            url(),
            "--api-key",
            key,
            "--client-secret",
            secret,
            "--domain",
            "other.example");
    CliRun failsJson =
        CliRun.of(
            "decrypt",
            publisher.token(),
            "--url",
            url(),
            "--api-key",
            key,
            "--client-secret",
            secret,
            "--domain",
            "other.example",
            "--json");
    CliRun domainWithoutSecret =
        CliRun.of(
            "decrypt",
            publisher.token(),
            "--url",
            url(),
            "--api-key",
            key,
            "--domain",
            "cli.example");
    CliRun badSecret =
        CliRun.of(
            "decrypt",
            publisher.token(),
            "--url",
            url(),
            "--api-key",
            key,
            "--client-secret",
            "c2hvcnQ=");

    assertThat(passes.exitCode()).as(passes.err()).isZero();
    JsonNode fields = JSON.readTree(passes.out());
    assertThat(fields.path("status").asText()).isEqualTo("SUCCESS");
    assertThat(fields.path("advertising_id").asText())
        .isEqualTo(v1AdvertisingId("cli-v2@example.com"));
    assertThat(fails.exitCode()).isEqualTo(4);
    assertThat(fails.out()).contains("status          DOMAIN_OR_APP_NAME_CHECK_FAILED");
    assertThat(JSON.readTree(failsJson.out()).path("status").asText())
        .isEqualTo("DOMAIN_OR_APP_NAME_CHECK_FAILED");
    assertThat(domainWithoutSecret.exitCode()).isEqualTo(2);
    assertThat(domainWithoutSecret.err()).contains("VEIL_CLIENT_SECRET");
    assertThat(badSecret.exitCode()).isEqualTo(2);
    assertThat(badSecret.err()).contains("--client-secret must be").doesNotContain("c2hvcnQ=");
  }

  @Test
  void veilDecrypt_takesTheSecretFromTheEnvironment() throws Exception {
    Publisher publisher = publisher("cli-env@example.com");
    admin("sites", "share", Integer.toString(publisher.siteId()), "--types", "DSP");
    try {
      Path log = dir.resolve("decrypt-env.log");
      ProcessBuilder command =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  "dev.veil.cli.Main",
                  "decrypt",
                  "--url",
                  url(),
                  "--json",
                  publisher.token())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      command.environment().put("VEIL_API_KEY", bidder.key().reveal());
      command.environment().put("VEIL_CLIENT_SECRET", bidder.client().secret().reveal());
      Process run = command.start();
      assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String out = Files.readString(log, StandardCharsets.UTF_8);

      assertThat(run.exitValue()).as(out).isEqualTo(4);
      assertThat(out).contains("\"status\":\"NOT_AUTHORIZED_FOR_KEY\"");
    } finally {
      admin("sites", "share", Integer.toString(publisher.siteId()), "--default");
    }
  }

  @Test
  void veilsTokenDecryptor_readsA33ByteRawIdSharedByUid2sSdk() {
    // A node with the default sharing lifetime (72 hours, the bid stream's too), so the shared
    // token passes a bidder's lifetime check.
    try (TestNode plain = TestNode.start()) {
      plain.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS));
      CreatedClient plainSender = plain.newClient(Role.SHARER);
      CreatedClient plainBidder = plain.newClient(Role.ID_READER);
      plain.services().keys().ensureKeysets(List.copyOf(plain.services().keys().ring().siteIds()));
      String base = "http://127.0.0.1:" + plain.port();
      SharingClient sdk =
          new SharingClient(
              base, plainSender.key().reveal(), plainSender.client().secret().reveal());
      assertThat(sdk.refresh().isSuccess()).isTrue();
      String rawId = rawId(33);
      String shared = sdk.encryptRawUidIntoToken(rawId).getEncryptedData();

      try (TokenDecryptor decryptor =
          VeilClient.builder()
              .baseUrl(base)
              .apiKey(plainBidder.key().reveal())
              .clientSecret(plainBidder.client().secret().reveal())
              .build()
              .tokenDecryptor()
              .build()) {
        decryptor.refreshKeys();
        DecryptionResult read = decryptor.decrypt(shared);

        assertThat(read.status()).as(read.reason()).isEqualTo(DecryptionStatus.SUCCESS);
        assertThat(read.advertisingId()).isEqualTo(rawId);
        assertThat(read.siteId()).isEqualTo(plainSender.client().siteId());
      }
    }
  }

  /** A raw id of {@code length} random bytes, read by UID2's SDK as an email's. */
  private static String rawId(int length) {
    byte[] id = new byte[length];
    new SecureRandom().nextBytes(id);
    id[0] &= 0x3f; // an email id: UID2's SDK reads the identity type from the first character
    return Base64.getEncoder().encodeToString(id);
  }
}
