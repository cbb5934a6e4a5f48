package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.cli.Main;
import dev.veil.client.ApiClient;
import dev.veil.client.ClientSecret;
import dev.veil.client.Role;
import dev.veil.core.crypto.Sha256;
import dev.veil.core.token.EncryptionKey;
import dev.veil.salt.SaltSnapshot;
import dev.veil.server.VeilServer;
import dev.veil.testing.CliRun;
import dev.veil.testing.InMemoryNode;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.RunningAdminServer;
import dev.veil.testing.TestConfigs;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code veil admin ...} run in-process against a real admin server on a loopback port. */
class AdminCliIT {
  private final RunningAdminServer server = RunningAdminServer.start();
  private final InMemoryNode node = server.node();
  private final ObjectMapper json = new ObjectMapper();

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  /** {@code veil admin --port P --key K args...}. */
  private CliRun admin(String... args) {
    return withKey(server.adminKey(), args);
  }

  private CliRun withKey(String key, String... args) {
    List<String> all =
        new ArrayList<>(List.of("admin", "--port", String.valueOf(server.port()), "--key", key));
    all.addAll(List.of(args));
    return CliRun.of(all.toArray(String[]::new));
  }

  private static void assertOk(CliRun run) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isZero();
  }

  private static void assertNoStackTrace(CliRun run) {
    assertThat(run.err()).doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(run.out()).doesNotContain("\tat ");
  }

  private JsonNode parse(String text) throws IOException {
    return json.readTree(text);
  }

  private ApiClient client(String name) {
    return node.services().clients().list().stream()
        .filter(c -> c.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  // --- client ---

  @Test
  void audit_listsEachChangeWithItsReason_forAnAuditReader() throws IOException {
    CliRun created =
        admin(
            "client",
            "create",
            "--name",
            "dsp",
            "--roles",
            "ID_READER",
            "--reason",
            "Onboarding 100% \u2014 ticket 7",
            "--key-only");
    assertOk(created);
    assertOk(admin("salts", "rotate", "--fraction", "0.01", "--reason", "quarterly"));
    String auditor = node.newClientKey("auditor", Role.AUDIT_READER);

    CliRun listed = withKey(auditor, "audit");
    assertOk(listed);
    String[] lines = listed.out().split("\\R");
    assertThat(lines[0]).startsWith("ID").contains("ACTION").contains("REASON");
    assertThat(lines[1]).contains("RotateSalts").contains("salts").contains("quarterly");
    assertThat(lines[2])
        .contains("CreateClient")
        .contains("client " + client("dsp").id())
        .contains("Onboarding 100% \u2014 ticket 7")
        .doesNotContain(created.out().strip());

    CliRun json = withKey(auditor, "audit", "--action", "CreateClient", "--json");
    assertOk(json);
    JsonNode events = parse(json.out()).get("events");
    assertThat(events).hasSize(1);
    assertThat(events.get(0).get("reason").asText()).isEqualTo("Onboarding 100% \u2014 ticket 7");

    CliRun denied = withKey(auditor, "salts", "rotate", "--fraction", "0.01");
    assertThat(denied.exitCode()).isEqualTo(1);
    CliRun badTime = withKey(auditor, "audit", "--since", "yesterday");
    assertThat(badTime.exitCode()).isEqualTo(2);
    assertThat(badTime.err()).contains("--since must be a UTC date");
    CliRun twoLines = admin("salts", "rotate", "--fraction", "0.01", "--reason", "a\nb");
    assertThat(twoLines.exitCode()).isEqualTo(2);
    assertThat(twoLines.err()).contains("--reason must be one line");
  }

  @Test
  void operatorRoles_areGrantedByCreate_andANarrowKeyIsToldWhichRoleItLacks() {
    CliRun created =
        admin(
            "client",
            "create",
            "--name",
            "alice",
            "--roles",
            "client_admin,DEDUCTION_READER",
            "--key-only");
    assertOk(created);
    String alice = created.out().strip();
    assertThat(client("alice").roles())
        .containsExactlyInAnyOrder(Role.CLIENT_ADMIN, Role.DEDUCTION_READER);

    CliRun listed = withKey(alice, "client", "list");
    assertOk(listed);
    assertThat(listed.out()).contains("CLIENT_ADMIN,DEDUCTION_READER");

    CliRun denied = withKey(alice, "salts", "rotate", "--fraction", "0.1");
    assertThat(denied.exitCode()).isEqualTo(1);
    assertThat(denied.err())
        .contains(
            "PERMISSION_DENIED: RotateSalts needs the KEY_ADMIN role (or ADMIN), which the API key"
                + " does not have");
    assertNoStackTrace(denied);

    CliRun escalate =
        withKey(alice, "client", "create", "--name", "bob", "--roles", "ADMIN", "--key-only");
    assertThat(escalate.exitCode()).isEqualTo(1);
    assertThat(escalate.err()).contains("roles: only a client that holds ADMIN may grant it");
    assertThat(node.services().clients().list()).noneMatch(c -> c.name().equals("bob"));
  }

  @Test
  void clientCreate_printsTheClientAndItsKeyOnce_withAWarningToStoreIt() {
    CliRun run =
        admin(
            "client",
            "create",
            "--name",
            "Publisher",
            "--roles",
            "GENERATOR,MAPPER",
            "--site-id",
            "42");

    assertOk(run);
    ApiClient created = client("Publisher");
    assertThat(created.siteId()).isEqualTo(42);
    assertThat(created.roles()).containsExactlyInAnyOrder(Role.GENERATOR, Role.MAPPER);
    String key =
        run.out()
            .lines()
            .filter(l -> l.startsWith("API key: "))
            .findFirst()
            .orElseThrow()
            .substring("API key: ".length());
    assertThat(run.out().split(key, -1)).hasSize(2);
    assertThat(run.out()).contains("Publisher").contains("GENERATOR,MAPPER").contains("42");
    assertThat(run.err()).contains("shown only once");
    assertThat(node.services().authenticator().authenticate("Bearer " + key)).isPresent();
    String secret = valueAfter(run, "Secret:  ");
    assertThat(created.secret()).isEqualTo(ClientSecret.of(Base64.getDecoder().decode(secret)));
    assertThat(run.err()).contains("API key and secret");
  }

  private static String valueAfter(CliRun run, String label) {
    return run.out()
        .lines()
        .filter(l -> l.startsWith(label))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line starting with " + label + " in " + run))
        .substring(label.length());
  }

  @Test
  void clientRotateSecret_printsTheNewSecretOnce_andKeepsTheKey() {
    String key = node.newClientKey("secretive", Role.GENERATOR);
    ApiClient before = client("secretive");

    CliRun run = admin("client", "rotate-secret", String.valueOf(before.id()));
    CliRun only = admin("client", "rotate-secret", String.valueOf(before.id()), "--secret-only");

    assertOk(run);
    String secret = valueAfter(run, "Secret: ");
    assertThat(Base64.getDecoder().decode(secret)).hasSize(32);
    assertThat(run.err()).contains("shown only once");
    assertOk(only);
    assertThat(only.out()).matches("[A-Za-z0-9+/]{43}=\\R").isNotEqualTo(secret + "\n");
    assertThat(client("secretive").secret())
        .isEqualTo(ClientSecret.of(Base64.getDecoder().decode(only.out().strip())));
    assertThat(node.services().authenticator().authenticate("Bearer " + key)).isPresent();
  }

  @Test
  void sites_setAndShare_changeWhatTheKeyEndpointsAnswer_andListShowsIt() {
    CliRun set =
        admin("sites", "set", "42", "--domains", "News.Example,com.example.app", "--types", "dsp");
    CliRun share = admin("sites", "share", "42", "--sites", "7,8", "--types", "ADVERTISER");
    CliRun list = admin("sites", "list");

    assertOk(set);
    assertThat(set.out())
        .contains("Domains: com.example.app,news.example")
        .contains("Types:   DSP");
    assertOk(share);
    assertThat(share.out()).contains("Sharing: sites 7,8; types ADVERTISER");
    assertOk(list);
    assertThat(list.out()).contains("42").contains("sites 7,8; types ADVERTISER");
    assertThat(node.services().sites().directory().site(42).sharing().orElseThrow().allowedSites())
        .containsExactlyInAnyOrder(7, 8);

    CliRun reset = admin("sites", "share", "42", "--default");
    assertOk(reset);
    assertThat(reset.out()).contains("Sharing: default (bidders)");
    assertThat(node.services().sites().directory().site(42).sharing()).isEmpty();

    CliRun none = admin("sites", "share", "42", "--sites");
    assertOk(none);
    assertThat(none.out()).contains("Sharing: none");
  }

  @Test
  void saltsRotate_aBucketIdBeginningWithADash_isReadAsTheOptionsValue() {
    CliRun run = admin("salts", "rotate", "--bucket=-AAAAAAAAAAA");

    // The server's refusal of an unknown bucket (1), not a usage error (2).
    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertNoStackTrace(run);
  }

  @Test
  void sites_badInput_isAClearRefusal_withoutAStackTrace() {
    CliRun badType = admin("sites", "set", "42", "--types", "BROKER");
    assertThat(badType.exitCode()).isEqualTo(1);
    assertThat(badType.err()).contains("unknown participant type 'BROKER'");
    assertNoStackTrace(badType);

    CliRun badName = admin("sites", "set", "42", "--domains", "not a domain");
    assertThat(badName.exitCode()).isEqualTo(1);
    assertThat(badName.err()).contains("invalid domain or app name");
    assertNoStackTrace(badName);

    CliRun both = admin("sites", "share", "42", "--default", "--sites", "7");
    assertThat(both.exitCode()).isEqualTo(2);
    assertNoStackTrace(both);

    CliRun nothing = admin("sites", "set", "42");
    assertThat(nothing.exitCode()).isEqualTo(1);
    assertThat(nothing.err()).contains("give domain_names, types or both");
  }

  @Test
  void clientCreate_withKeyOnly_printsOnlyTheKey_forAScriptToCapture() {
    CliRun run = admin("client", "create", "--name", "Scripted", "--roles", "MAPPER", "--key-only");

    assertOk(run);
    assertThat(run.out()).matches("vk1\\.\\S+\\R");
    assertThat(run.err()).contains("shown only once");
    assertThat(node.services().authenticator().authenticate("Bearer " + run.out().strip()))
        .isPresent();

    CliRun rotated =
        admin("client", "rotate-key", String.valueOf(client("Scripted").id()), "--key-only");
    assertOk(rotated);
    assertThat(rotated.out()).matches("vk1\\.\\S+\\R").isNotEqualTo(run.out());
    assertThat(node.services().authenticator().authenticate("Bearer " + rotated.out().strip()))
        .isPresent();
  }

  @Test
  void clientCreate_withJson_printsTheClientAndApiKeyAsJson() throws IOException {
    CliRun run = admin("client", "create", "--name", "J", "--roles", "OPTOUT", "--json");

    assertOk(run);
    JsonNode out = parse(run.out());
    assertThat(out.get("client").get("name").asText()).isEqualTo("J");
    assertThat(out.get("client").get("roles").get(0).asText()).isEqualTo("OPTOUT");
    assertThat(out.get("api_key").asText()).startsWith("vk1.");
    assertThat(run.err()).contains("shown only once");
  }

  @Test
  void clientCreate_withUnknownRole_exitsOneWithTheServersMessage() {
    CliRun run = admin("client", "create", "--name", "x", "--roles", "MAPPER,ROOT");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("INVALID_ARGUMENT").contains("unknown role 'ROOT'");
    assertNoStackTrace(run);
  }

  @Test
  void clientCreate_withoutRoles_isAUsageError() {
    CliRun run = admin("client", "create", "--name", "x");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--roles");
    assertThat(node.services().clients().list()).hasSize(1);
  }

  @Test
  void clientList_printsATableOfEveryClient() {
    node.newClientKey("mapper one", Role.MAPPER);

    CliRun run = admin("client", "list");

    assertOk(run);
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("ID")
        .contains("NAME", "SITE", "ROLES", "ENABLED", "CREATED", "KEY ID");
    assertThat(lines).hasSize(3);
    assertThat(lines.get(2))
        .contains("mapper one")
        .contains("MAPPER")
        .contains("yes")
        .contains("2026-03-01T12:00:00Z");
  }

  @Test
  void clientList_escapesFormatCharactersInNames_whileJsonKeepsThemExact() throws IOException {
    node.newClientKey("evil\u202Eeman", Role.MAPPER);

    CliRun table = admin("client", "list");
    CliRun json = admin("client", "list", "--json");

    assertOk(table);
    assertThat(table.out()).doesNotContain("\u202E");
    assertThat(table.out().lines().toList().get(2))
        .contains(" evil\\u202Eeman ")
        .contains("MAPPER");
    assertThat(parse(json.out()).get("clients").get(1).get("name").asText())
        .isEqualTo("evil\u202Eeman");
  }

  @Test
  void clientCreate_withABlankName_saysItIsBlank() {
    for (String blank : List.of("   ", "\u00a0\u200b")) {
      CliRun run = admin("client", "create", "--name", blank, "--roles", "MAPPER");

      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.err())
          .isEqualTo(
              "veil admin: the server refused: INVALID_ARGUMENT: name must not be blank"
                  + System.lineSeparator());
    }
  }

  @Test
  void clientCreate_withA65EmojiName_isAccepted() {
    String name = "\uD83D\uDE00".repeat(65);

    assertOk(admin("client", "create", "--name", name, "--roles", "MAPPER"));
    assertThat(client(name).name()).hasSize(130);
  }

  @Test
  void clientList_withJson_printsEveryClientWithoutKeys() throws IOException {
    CliRun run = admin("client", "list", "--json");

    assertOk(run);
    JsonNode clients = parse(run.out()).get("clients");
    assertThat(clients).hasSize(1);
    assertThat(clients.get(0).get("id").asLong()).isEqualTo(1);
    assertThat(run.out()).doesNotContain(server.adminKey());
  }

  @Test
  void clientDisable_thenEnable_switchesTheClient() {
    node.newClientKey("switch", Role.MAPPER);
    long id = client("switch").id();

    CliRun disabled = admin("client", "disable", String.valueOf(id));
    boolean enabledAfterDisable = client("switch").enabled();
    CliRun enabled = admin("client", "enable", String.valueOf(id));

    assertOk(disabled);
    assertOk(enabled);
    assertThat(enabledAfterDisable).isFalse();
    assertThat(disabled.out()).contains("switch").contains(" no ");
    assertThat(client("switch").enabled()).isTrue();
  }

  @Test
  void clientDisable_unknownId_exitsOneWithNotFound() {
    CliRun run = admin("client", "disable", "404");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("NOT_FOUND").contains("no client with id 404");
    assertNoStackTrace(run);
  }

  @Test
  void clientDisable_withANonNumericId_isAUsageError() {
    assertThat(admin("client", "disable", "abc").exitCode()).isEqualTo(2);
  }

  @Test
  void clientRotateKey_printsTheNewKey_andTheOldOneStopsWorking() {
    String oldKey = node.newClientKey("rotating", Role.MAPPER);

    CliRun run = admin("client", "rotate-key", String.valueOf(client("rotating").id()));

    assertOk(run);
    String newKey =
        run.out()
            .lines()
            .filter(l -> l.startsWith("API key: "))
            .findFirst()
            .orElseThrow()
            .substring(9);
    assertThat(newKey).isNotEqualTo(oldKey);
    assertThat(node.services().authenticator().authenticate("Bearer " + newKey)).isPresent();
    assertThat(node.services().authenticator().authenticate("Bearer " + oldKey)).isEmpty();
    assertThat(run.err()).contains("shown only once");
  }

  // --- keys ---

  @Test
  void keysList_printsEveryKeysetWithItsState() {
    CliRun run = admin("keys", "list");

    assertOk(run);
    assertThat(run.out())
        .contains("KEYSET")
        .contains("master")
        .contains("refresh")
        .contains("site 1")
        .contains("active");
    assertThat(run.out().lines()).hasSize(4);
  }

  @Test
  void keysList_withJson_printsMetadataOnly() throws IOException {
    CliRun run = admin("--json", "keys", "list");

    assertOk(run);
    JsonNode keys = parse(run.out()).get("keys");
    assertThat(keys).hasSize(3);
    assertThat(keys.get(0).has("secret")).isFalse();
    for (EncryptionKey key : node.keyMaterial()) {
      assertThat(run.out()).doesNotContain(Base64.getEncoder().encodeToString(key.secret()));
    }
  }

  @Test
  void keysRotate_withSiteIds_rotatesThoseKeysets() {
    CliRun run = admin("keys", "rotate", "--site-id", "-1");

    assertOk(run);
    assertThat(run.out()).contains("Created 1 key(s)").contains("master").contains("pending");
    assertThat(node.services().keys().ring().size()).isEqualTo(4);
  }

  @Test
  void keysRotate_withoutSiteIds_rotatesEveryKeyset() throws IOException {
    CliRun run = admin("keys", "rotate", "--json");

    assertOk(run);
    assertThat(parse(run.out()).get("created")).hasSize(3);
  }

  @Test
  void keysRotate_unknownSite_exitsOneWithNotFound() {
    CliRun run = admin("keys", "rotate", "--site-id", "31337");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("NOT_FOUND").contains("31337");
  }

  // --- salts ---

  @Test
  void saltsRotate_withFraction_rotatesThatShare() {
    CliRun run = admin("salts", "rotate", "--fraction", "0.5");

    assertOk(run);
    assertThat(run.out()).contains("Rotated " + TestConfigs.BUCKETS / 2 + " bucket(s).");
  }

  @Test
  void saltsRotate_withBuckets_rotatesThoseBuckets_repeatedOrCommaSeparated() {
    SaltSnapshot salts = node.services().salts().current();

    CliRun repeated =
        admin("salts", "rotate", "--bucket", salts.bucketId(1), "--bucket", salts.bucketId(2));
    CliRun commas =
        admin("salts", "rotate", "--bucket", salts.bucketId(3) + "," + salts.bucketId(4), "--json");

    assertOk(repeated);
    assertOk(commas);
    assertThat(repeated.out()).contains("Rotated 2 bucket(s).");
    assertThat(node.services().salts().current().rotatedCount()).isEqualTo(4);
  }

  @Test
  void saltsRotate_withFractionOutOfRange_exitsOneWithTheServersMessage() {
    CliRun run = admin("salts", "rotate", "--fraction", "2");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains("INVALID_ARGUMENT")
        .contains("fraction must be greater than 0 and at most 1");
  }

  @Test
  void saltsRotate_withoutOrWithBothTargets_isAUsageError() {
    assertThat(admin("salts", "rotate").exitCode()).isEqualTo(2);
    assertThat(admin("salts", "rotate", "--fraction", "0.1", "--bucket", "abc").exitCode())
        .isEqualTo(2);
    assertThat(node.services().salts().current().rotatedCount()).isZero();
  }

  @Test
  void saltsStatus_printsCountsAndTimes() {
    CliRun run = admin("salts", "status");

    assertOk(run);
    assertThat(run.out())
        .contains("buckets              " + TestConfigs.BUCKETS)
        .contains("rotated buckets      0")
        .contains("2026-03-01T12:00:00Z")
        .contains("last daily rotation  2026-03-01");
  }

  @Test
  void saltsStatus_withJson_printsTheResponse() throws IOException {
    CliRun run = admin("salts", "status", "--json");

    assertOk(run);
    JsonNode status = parse(run.out());
    assertThat(status.get("bucket_count").asInt()).isEqualTo(TestConfigs.BUCKETS);
    assertThat(status.get("oldest_salt_ms").asLong())
        .isEqualTo(RunningAdminServer.START.toEpochMilli());
  }

  // --- opt-outs ---

  @Test
  void optoutRecord_byEmail_thenLookupByItsHash_findsIt() throws IOException {
    String hash =
        Base64.getEncoder()
            .encodeToString(Sha256.digest("jane@example.com".getBytes(StandardCharsets.UTF_8)));

    CliRun recorded = admin("optout", "record", "--email", "Jane@Example.com");
    CliRun found = admin("optout", "lookup", "--email-hash", hash, "--json");

    assertOk(recorded);
    assertOk(found);
    assertThat(recorded.out())
        .isEqualTo("Opted out at 2026-03-01T12:00:00Z." + System.lineSeparator());
    JsonNode answer = parse(found.out());
    assertThat(answer.get("opted_out").asBoolean()).isTrue();
    assertThat(answer.get("opted_out_ms").asLong())
        .isEqualTo(RunningAdminServer.START.toEpochMilli());
  }

  @Test
  void optoutRecord_byPhoneAndPhoneHash_areTheSameIdentity() {
    String hash =
        Base64.getEncoder()
            .encodeToString(Sha256.digest("+12025550123".getBytes(StandardCharsets.UTF_8)));

    assertOk(admin("optout", "record", "--phone-hash", hash));
    CliRun found = admin("optout", "lookup", "--phone", "+12025550123");

    assertOk(found);
    assertThat(found.out()).startsWith("Opted out at ");
  }

  @Test
  void optoutLookup_forAnIdentityThatDidNotOptOut_saysSo() {
    CliRun run = admin("optout", "lookup", "--email", "nobody@example.com");

    assertOk(run);
    assertThat(run.out()).contains("Not opted out.");
  }

  @Test
  void optoutRecord_withAnInvalidEmail_exitsOneWithoutEchoingIt() {
    CliRun run = admin("optout", "record", "--email", "jane-at-example.com");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("INVALID_ARGUMENT: invalid email").doesNotContain("jane");
    assertNoStackTrace(run);
  }

  @Test
  void optoutRecord_withTwoIdentities_isAUsageError() {
    CliRun run = admin("optout", "record", "--email", "a@b.com", "--phone", "+12025550123");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(node.services().optOuts().size()).isZero();
  }

  // --- connection, key, usage ---

  @Test
  void badKey_exitsOneWithTheStatusMessage() {
    CliRun run =
        withKey("vk1.AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "client", "list");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("UNAUTHENTICATED").contains("missing or unknown API key");
    assertThat(run.out()).isEmpty();
    assertNoStackTrace(run);
  }

  @Test
  void aKeyGivenWithBearer_isAUsageErrorSayingToDropIt() {
    CliRun run = withKey("Bearer " + server.adminKey(), "client", "list");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .contains("Give the admin key without 'Bearer '")
        .doesNotContain(server.adminKey());
  }

  @Test
  void aKeyTooLongForGrpcMetadata_isAUsageError_notAServerRefusal() {
    CliRun run = withKey("k".repeat(20_000), "client", "list");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .contains("The admin key is 20000 characters long, not an API key")
        .doesNotContain("refused")
        .doesNotContain("kkkk");
    assertNoStackTrace(run);
  }

  @Test
  void keyWithoutAdminRole_exitsOneWithPermissionDenied() {
    CliRun run = withKey(node.newClientKey("gen", Role.GENERATOR), "keys", "list");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("PERMISSION_DENIED").contains("ADMIN");
  }

  @Test
  void noServerListening_exitsThree() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      closedPort = socket.getLocalPort();
    }

    CliRun run =
        CliRun.of("admin", "client", "list", "--port", String.valueOf(closedPort), "--key", "k");

    assertThat(run.exitCode()).isEqualTo(3);
    assertThat(run.err()).contains("cannot connect to the admin server at 127.0.0.1:" + closedPort);
    assertNoStackTrace(run);
  }

  private static String answeredHttp(int port) {
    return "veil admin: 127.0.0.1:"
        + port
        + " answered HTTP, not gRPC: probably the public HTTP port (the admin gRPC"
        + " port is grpc.port, default 9090)"
        + System.lineSeparator();
  }

  @Test
  void thePublicHttpPort_exitsThree_sayingItAnsweredHttpNotGrpc() {
    try (VeilServer veil =
        VeilServer.start(
            TestConfigs.config(), MutableClock.at("2026-03-01T12:00:00Z"), new InMemoryStores())) {
      CliRun run =
          CliRun.of(
              "admin",
              "--port",
              String.valueOf(veil.httpPort()),
              "--key",
              server.adminKey(),
              "client",
              "list");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
      assertThat(run.err()).isEqualTo(answeredHttp(veil.httpPort()));
      assertThat(run.out()).isEmpty();
    }
  }

  @Test
  void anHttp2ServerThatIsNotGrpc_exitsThree_withoutItsHeaders() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      HttpServer http2 =
          vertx
              .createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true))
              .requestHandler(
                  request ->
                      request
                          .response()
                          .setStatusCode(404)
                          .putHeader("content-type", "text/plain")
                          .end("not found"))
              .listen(0, "127.0.0.1")
              .toCompletionStage()
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);

      CliRun run =
          CliRun.of(
              "admin",
              "--port",
              String.valueOf(http2.actualPort()),
              "--key",
              server.adminKey(),
              "client",
              "list");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
      assertThat(run.err()).isEqualTo(answeredHttp(http2.actualPort()));
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void portOutOfRange_isAUsageError() {
    CliRun run = CliRun.of("admin", "keys", "list", "--port", "70000", "--key", server.adminKey());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--port must be between 1 and 65535");
  }

  @Test
  void aHostWithAPortOrEmpty_isAUsageError_withoutAStackTrace() {
    for (String host : List.of("127.0.0.1:" + server.port(), "")) {
      CliRun run =
          CliRun.of(
              "admin",
              "keys",
              "list",
              "--host",
              host,
              "--port",
              String.valueOf(server.port()),
              "--key",
              server.adminKey());

      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
      assertThat(run.err()).contains("--host must be a host name or an IP address, without a port");
      assertNoStackTrace(run);
    }
  }

  @Test
  void connectionOptions_mayFollowTheSubcommand() {
    CliRun run =
        CliRun.of(
            "admin",
            "client",
            "list",
            "--key",
            server.adminKey(),
            "--port",
            String.valueOf(server.port()),
            "--host",
            "127.0.0.1");

    assertOk(run);
    assertThat(run.out()).contains(" " + InMemoryNode.ADMIN_NAME + " ");
  }

  @Test
  void missingKey_isAUsageErrorNamingWhereKeysComeFrom() {
    assumeTrue(
        System.getenv("VEIL_ADMIN_KEY") == null && !Files.exists(Path.of("data", "admin.key")));

    CliRun run = CliRun.of("admin", "client", "list", "--port", String.valueOf(server.port()));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("No admin key")
        .contains("VEIL_ADMIN_KEY")
        .contains("data/admin.key");
  }

  @Test
  void adminOrAGroupWithoutSubcommand_isAUsageError() {
    assertThat(CliRun.of("admin").exitCode()).isEqualTo(2);
    assertThat(admin("client").exitCode()).isEqualTo(2);
  }

  @Test
  void mainRun_returnsTheCommandsExitCode() {
    String port = String.valueOf(server.port());

    assertThat(Main.run("admin", "--port", port, "--key", server.adminKey(), "salts", "status"))
        .isZero();
    assertThat(Main.run("admin", "--port", port, "--key", "wrong", "salts", "status")).isEqualTo(1);
  }

  @Test
  void help_listsEverySubcommand() {
    CliRun run = CliRun.of("admin", "--help");

    assertOk(run);
    assertThat(run.out())
        .contains("client", "keys", "salts", "optout", "--host", "--port", "--key", "--json");
  }

  @Test
  void everyRpcHasASubcommand() {
    for (String[] args :
        List.of(
            new String[] {"client", "create", "--help"},
            new String[] {"client", "list", "--help"},
            new String[] {"client", "disable", "--help"},
            new String[] {"client", "enable", "--help"},
            new String[] {"client", "rotate-key", "--help"},
            new String[] {"keys", "list", "--help"},
            new String[] {"keys", "rotate", "--help"},
            new String[] {"salts", "rotate", "--help"},
            new String[] {"salts", "status", "--help"},
            new String[] {"optout", "record", "--help"},
            new String[] {"optout", "lookup", "--help"})) {
      assertThat(admin(args).exitCode()).as(String.join(" ", args)).isZero();
    }
  }

  @Test
  void webhooks_registerListDelete_printTheSecretOnce_andRefuseABadUrlClearly() throws IOException {
    long bidder = node.newClient("bidder", Role.ID_READER).client().id();

    CliRun register =
        admin(
            "webhooks",
            "register",
            "--client-id",
            String.valueOf(bidder),
            "--url",
            "https://dsp.example/optout?user=%%identity%%");
    CliRun secretOnly =
        admin(
            "webhooks",
            "register",
            "--client-id",
            String.valueOf(bidder),
            "--url",
            "https://dsp.example/two",
            "--secret-only");
    CliRun list = admin("webhooks", "list");
    CliRun json = admin("webhooks", "list", "--json");
    CliRun delete = admin("webhooks", "delete", "1");
    CliRun bad =
        admin("webhooks", "register", "--client-id", String.valueOf(bidder), "--url", "ftp://x/");

    assertOk(register);
    assertThat(register.out()).contains("https://dsp.example/optout?user=%%identity%%");
    String secret =
        register
            .out()
            .lines()
            .filter(l -> l.startsWith("Secret: "))
            .findFirst()
            .orElseThrow()
            .substring("Secret: ".length());
    assertThat(Base64.getDecoder().decode(secret)).hasSize(32);
    assertThat(register.err()).contains("shown only once");
    assertOk(secretOnly);
    assertThat(Base64.getDecoder().decode(secretOnly.out().strip())).hasSize(32);
    assertOk(list);
    assertThat(list.out()).contains("https://dsp.example/two").doesNotContain(secret);
    assertThat(parse(json.out()).path("webhooks")).hasSize(2);
    assertOk(delete);
    assertThat(admin("webhooks", "list").out()).doesNotContain("user=%%identity%%");
    assertThat(bad.exitCode()).isEqualTo(1);
    assertThat(bad.err()).contains("INVALID_ARGUMENT").contains("http or https");
    assertNoStackTrace(bad);
  }
}
