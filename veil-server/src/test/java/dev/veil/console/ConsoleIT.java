package dev.veil.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.audit.AuditEvent;
import dev.veil.audit.AuditFilter;
import dev.veil.client.AdminAction;
import dev.veil.client.ApiClient;
import dev.veil.client.ClientService;
import dev.veil.client.Role;
import dev.veil.testing.ConsoleBrowser;
import dev.veil.testing.ConsoleBrowser.Page;
import dev.veil.testing.InMemoryNode;
import dev.veil.testing.RunningConsole;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The web console over a real socket against a node's real services: sign-in, sessions, cross-site
 * request protection, role checks on every route, the audit trail, and secrets shown once.
 */
class ConsoleIT {
  private static final Pattern CODE =
      Pattern.compile("<code id=\"secret-\\d\" data-secret=\"\">([^<]+)</code>");

  private RunningConsole console;
  private ConsoleBrowser browser;

  @BeforeEach
  void start() {
    console = RunningConsole.start();
    browser = console.browser();
  }

  @AfterEach
  void stop() {
    console.close();
  }

  private InMemoryNode node() {
    return console.node();
  }

  private Page signInAsAdmin() {
    Page signedIn = browser.signIn(node().adminKey());
    assertThat(signedIn.status()).isEqualTo(303);
    assertThat(signedIn.location()).isEqualTo("/");
    return browser.get("/");
  }

  @Test
  void signIn_withTheAdminKey_opensTheOverview_andTheCookieIsHttpOnlyAndStrict() {
    Page signedIn = browser.signIn(node().adminKey());

    assertThat(signedIn.status()).isEqualTo(303);
    String cookie =
        signedIn.setCookies().stream()
            .filter(c -> c.startsWith("veil_console="))
            .findFirst()
            .orElseThrow();
    assertThat(cookie).contains("HttpOnly").contains("SameSite=Strict").contains("Path=/");
    String id = cookie.substring("veil_console=".length(), cookie.indexOf(';'));
    assertThat(id).matches("[A-Za-z0-9_-]{43}"); // 32 random bytes
    assertThat(id).doesNotContain(node().adminKey());
    Page overview = browser.get("/");
    assertThat(overview.status()).isEqualTo(200);
    assertThat(overview.body()).contains("Signed in as <strong>admin</strong>").contains("Ready");
  }

  @Test
  void tenRefusedSignInsInAMinute_makeTheNextWait_evenWithTheRightKey_untilAMinuteHasPassed() {
    ConsoleBrowser browser = console.browser();
    String admin = node().adminKey();
    String wrong = admin.substring(0, admin.length() - 4) + "AAAA";
    for (int i = 0; i < SignInThrottle.MAX_REFUSALS; i++) {
      assertThat(browser.signIn(wrong).status()).isEqualTo(401);
      node().clock().advance(Duration.ofSeconds(1));
    }

    Page throttled = browser.signIn(admin);

    assertThat(throttled.status()).isEqualTo(429);
    assertThat(throttled.body()).contains("Too many refused sign-ins", "Try again in 50 s");
    assertThat(throttled.setCookies()).noneMatch(c -> c.startsWith("veil_console="));

    node().clock().advance(Duration.ofSeconds(50)); // the first refusal is now a minute old
    Page signedIn = browser.signIn(admin);
    assertThat(signedIn.status()).isEqualTo(303);
    assertThat(signedIn.setCookies()).anyMatch(c -> c.startsWith("veil_console="));
  }

  @Test
  void signIn_withAWrongUnknownDisabledOrNonOperatorKey_isRefusedAlike_withoutASession() {
    ClientService.CreatedClient disabled = node().newClient("gone", Role.ADMIN);
    node().services().clients().setEnabled(disabled.client().id(), false);
    String publicOnly = node().newClientKey("publisher", Role.GENERATOR);
    String admin = node().adminKey();
    String wrongSecret = admin.substring(0, admin.length() - 4) + "AAAA";

    for (String key :
        List.of(wrongSecret, "vk1.unknown", "", disabled.key().reveal(), publicOnly)) {
      Page refused = console.browser().signIn(key);

      assertThat(refused.status()).as(key).isEqualTo(401);
      assertThat(refused.body()).contains(SignIn.REFUSED);
      assertThat(refused.setCookies()).noneMatch(c -> c.startsWith("veil_console="));
    }
  }

  @Test
  void signIn_withoutTheFormsToken_orFromAnotherOrigin_isRefused() {
    browser.get("/sign-in");
    Page noToken = browser.postRaw("/sign-in", console.origin(), Map.of("key", node().adminKey()));
    Page token = browser.get("/sign-in");
    String good = token.body().replaceAll("(?s).*name=\"token\" value=\"([^\"]+)\".*", "$1");
    Page crossOrigin =
        browser.postRaw(
            "/sign-in", "http://evil.example", Map.of("token", good, "key", node().adminKey()));

    assertThat(noToken.status()).isEqualTo(403);
    assertThat(crossOrigin.status()).isEqualTo(403);
    assertThat(browser.get("/").status()).isEqualTo(303);
  }

  @Test
  void aPage_withoutASession_sendsToSignIn() {
    Page page = browser.get("/clients");

    assertThat(page.status()).isEqualTo(303);
    assertThat(page.location()).isEqualTo("/sign-in");
  }

  @Test
  void aForm_withoutOrWithAWrongCsrfToken_orFromAnotherSite_isRefused403_andChangesNothing() {
    signInAsAdmin();
    browser.get("/deductions");
    String csrf = browser.last().csrf();
    Map<String, String> create = Map.of("title", "Gym", "pay_method_id", "3", "request_id", "r-1");

    Page missing = browser.postRaw("/deductions", console.origin(), create);
    Page wrong = browser.postRaw("/deductions", console.origin(), with(create, "csrf", csrf + "x"));
    Page otherOrigin =
        browser.postRaw("/deductions", "http://127.0.0.1:1", with(create, "csrf", csrf));
    Page noOrigin = browser.postRaw("/deductions", null, with(create, "csrf", csrf));

    for (Page refused : List.of(missing, wrong, otherOrigin, noOrigin)) {
      assertThat(refused.status()).isEqualTo(403);
      assertThat(refused.body()).contains("Form refused").contains("nothing was changed");
    }
    assertThat(console.deductions().get(1).success()).isFalse();
    assertThat(node().services().audit().list(AuditFilter.ALL, 10)).isEmpty();
    Page accepted = browser.postRaw("/deductions", console.origin(), with(create, "csrf", csrf));
    assertThat(accepted.status()).isEqualTo(303);
    assertThat(console.deductions().get(1).success()).isTrue();
  }

  @Test
  void aSession_endsAfterItsIdleTimeout() {
    signInAsAdmin();
    node().clock().advance(Duration.ofMinutes(14));
    assertThat(browser.get("/").status()).isEqualTo(200);

    node().clock().advance(Duration.ofMinutes(15));
    Page expired = browser.get("/");

    assertThat(expired.status()).isEqualTo(303);
    assertThat(expired.location()).isEqualTo("/sign-in?why=expired");
    assertThat(browser.get("/sign-in?why=expired").body()).contains("Your session expired");
    assertThat(browser.get("/").location()).isEqualTo("/sign-in");
  }

  @Test
  void aSession_endsAfterItsLifetime_evenWhenUsed() {
    signInAsAdmin();
    for (int i = 0; i < 47; i++) { // 47 × 10 min = 7 h 50 min
      node().clock().advance(Duration.ofMinutes(10));
      assertThat(browser.get("/").status()).as("after %d minutes", (i + 1) * 10).isEqualTo(200);
    }
    node().clock().advance(Duration.ofMinutes(10));

    assertThat(browser.get("/").location()).isEqualTo("/sign-in?why=expired");
  }

  @Test
  void signOut_endsTheSession() {
    signInAsAdmin();

    Page out = browser.post("/sign-out");

    assertThat(out.status()).isEqualTo(303);
    assertThat(out.location()).isEqualTo("/sign-in?why=signed-out");
    assertThat(browser.get("/").location()).isEqualTo("/sign-in");
  }

  @Test
  void rotatingTheSignedInClientsOwnKey_endsItsSession() {
    signInAsAdmin();
    browser.get("/clients/1");

    Page rotated = browser.post("/clients/1/rotate-key", "once", browser.last().once());

    assertThat(rotated.status()).isEqualTo(200);
    assertThat(browser.get("/").location()).isEqualTo("/sign-in?why=ended");
  }

  /** Every route that needs a role, asked for by a client holding every other operator role. */
  static Stream<ConsoleRoute> routesWithARole() {
    Sessions sessions =
        new Sessions(
            java.time.Clock.systemUTC(),
            new java.security.SecureRandom(),
            Duration.ofMinutes(1),
            Duration.ofMinutes(1));
    return ConsoleRoutes.of(null, sessions, new SignIn(null, sessions, null), null).stream()
        .filter(r -> !r.pattern().equals(SignIn.PATH))
        .filter(r -> actionOf(r) != null);
  }

  /** The action of a route asked for without a query (the deduction list: its open records). */
  private static AdminAction actionOf(ConsoleRoute route) {
    return route.action().apply(new ConsoleRequest(-1, Form.EMPTY, Form.EMPTY, null, null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("routesWithARole")
  void everyRoute_isRefused403_namingTheRole_toAClientWithoutIt(ConsoleRoute route) {
    AdminAction action = actionOf(route);
    Set<Role> others = EnumSet.noneOf(Role.class);
    Arrays.stream(Role.values())
        .filter(r -> r.isOperatorRole() && r != Role.ADMIN && r != action.role())
        .forEach(others::add);
    String key = node().newClientKey("narrow", others.toArray(Role[]::new));
    browser.signIn(key);
    browser.get("/");
    String path = route.pattern().replace("{id}", "1");

    Page denied = route.method().equals("GET") ? browser.get(path) : browser.post(path);

    assertThat(denied.status()).isEqualTo(403);
    assertThat(denied.body())
        .contains(
            "Permission denied: " + action.method() + " needs the " + action.role() + " role");
    assertThat(node().services().audit().list(AuditFilter.ALL, 10)).isEmpty();
  }

  @Test
  void aDeductionReader_listsDeductions_butIsDeniedClosingOne() {
    console.deductions().create("Gym", "", 3, "");
    browser.signIn(node().newClientKey("reader", Role.DEDUCTION_READER));

    Page list = browser.get("/deductions");
    Page one = browser.get("/deductions/1");
    Page close = browser.post("/deductions/1/close");

    assertThat(list.status()).isEqualTo(200);
    assertThat(list.body()).contains("Gym");
    assertThat(one.status()).isEqualTo(200);
    assertThat(close.status()).isEqualTo(403);
    assertThat(close.body())
        .contains("Permission denied: CloseDeduction needs the DEDUCTION_WRITER role");
    assertThat(console.deductions().get(1).records().get(0).status().name()).isEqualTo("NORMAL");
    assertThat(browser.get("/clients").status()).isEqualTo(403);
  }

  @Test
  void creatingAClient_showsItsKeyAndSecretOnce_andNeverAgain() {
    signInAsAdmin();
    browser.get("/clients");
    String once = browser.last().once();
    String[] form = {
      "once", once, "name", "dsp", "roles", "ID_READER", "reason", "Onboarding OPS-7"
    };

    Page created = browser.post("/clients", form);

    assertThat(created.status()).isEqualTo(200);
    assertThat(created.header("cache-control")).isEqualTo("no-store");
    List<String> secrets = secrets(created.body());
    assertThat(secrets).hasSize(2);
    String key = secrets.get(0);
    ApiClient client =
        node().services().authenticator().authenticate("Bearer " + key).orElseThrow();
    assertThat(client.name()).isEqualTo("dsp");
    assertThat(client.secret().reveal()).isEqualTo(secrets.get(1));

    Page again = browser.post("/clients", form); // a reload sends the same form again
    assertThat(again.status()).isEqualTo(409);
    assertThat(node().services().clients().list()).hasSize(2);
    for (String path :
        List.of("/", "/clients", "/clients/" + client.id(), "/audit", "/sites", "/webhooks")) {
      Page page = browser.get(path);
      assertThat(page.body())
          .as(path)
          .doesNotContain(secrets.get(0))
          .doesNotContain(secrets.get(1));
    }
    assertThat(again.body()).doesNotContain(secrets.get(0)).doesNotContain(secrets.get(1));
    assertThat(created.location()).isNull();
  }

  @Test
  void aConsoleChange_isRecordedInTheAuditTrail_withTheSignedInClientAsActor() {
    ApiClient operator =
        node()
            .newClient("alice", Role.CLIENT_ADMIN, Role.DEDUCTION_WRITER, Role.DEDUCTION_READER)
            .client();
    browser.signIn(node().newClientKey("unused", Role.GENERATOR)); // refused, no session
    browser.signIn(node().services().clients().rotateKey(operator.id()).key().reveal());
    browser.get("/clients");

    browser.post(
        "/clients",
        "once",
        browser.last().once(),
        "name",
        "dsp",
        "roles",
        "MAPPER",
        "roles",
        "ID_READER",
        "reason",
        "ticket OPS-7");
    browser.get("/deductions");
    browser.post("/deductions", "title", "Gym", "pay_method_id", "3", "request_id", "r1");
    browser.post("/deductions/1/close", "reason", "ended");

    List<AuditEvent> events = node().services().audit().list(AuditFilter.ALL, 10);
    assertThat(events)
        .extracting(AuditEvent::action)
        .containsExactly("CloseDeduction", "CreateDeduction", "CreateClient");
    assertThat(events)
        .allSatisfy(
            e -> {
              assertThat(e.actorId()).isEqualTo(operator.id());
              assertThat(e.actorName()).isEqualTo("alice");
            });
    AuditEvent created = events.get(2);
    assertThat(created.target()).isEqualTo("client 4");
    assertThat(created.details())
        .isEqualTo("{\"name\":\"dsp\",\"site_id\":0,\"roles\":[\"MAPPER\",\"ID_READER\"]}");
    assertThat(created.reason()).isEqualTo("ticket OPS-7");
    assertThat(events.get(1).target()).isEqualTo("deduction 1");
    assertThat(events.get(0).details())
        .isEqualTo("{\"status\":\"EXPIRED\",\"close_reason\":\"MANUAL\"}");
    assertThat(events.get(0).reason()).isEqualTo("ended");
  }

  @Test
  void aReasonTheAuditTrailRefuses_isAClearMessage_andNothingChanges() {
    signInAsAdmin();
    browser.get("/deductions");

    Page refused =
        browser.post(
            "/deductions", "title", "Gym", "pay_method_id", "3", "reason", "x".repeat(257));

    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.body()).contains("reason: at most 256 characters");
    assertThat(console.deductions().get(1).success()).isFalse();
  }

  @Test
  void aRefusedForm_thatWouldShowASecret_canBeSentAgainOnceCorrected() {
    signInAsAdmin();
    browser.get("/clients");
    String once = browser.last().once();

    Page refused =
        browser.post("/clients", "once", once, "name", "dsp", "roles", "MAPPER", "site_id", "x");
    Page corrected = browser.post("/clients", "once", once, "name", "dsp", "roles", "MAPPER");

    assertThat(refused.status()).isEqualTo(400);
    assertThat(corrected.status()).isEqualTo(200);
    assertThat(secrets(corrected.body())).hasSize(2);
  }

  @Test
  void badInput_isAClearMessage_neverA500() {
    signInAsAdmin();
    browser.get("/clients");
    String csrf = browser.last().csrf();

    Page badSite =
        browser.post(
            "/clients",
            "once",
            browser.last().once(),
            "name",
            "x",
            "site_id",
            "abc",
            "roles",
            "MAPPER");
    Page blankTitle = browser.post("/deductions", "csrf", csrf, "title", " ", "pay_method_id", "1");
    Page badEmail = browser.post("/opt-outs/lookup", "kind", "email", "value", "not-an-email");
    Page unknownClient = browser.get("/clients/99");
    Page unknownDeduction = browser.get("/deductions/99");
    Page badAuditTime = browser.get("/audit?since=yesterday");
    Page unknownPage = browser.get("/nope");

    assertThat(badSite.status()).isEqualTo(400);
    assertThat(badSite.body()).contains("Site id must be a whole number");
    assertThat(blankTitle.status()).isEqualTo(400);
    assertThat(blankTitle.body()).contains("invalid argument");
    assertThat(badEmail.status()).isEqualTo(400);
    assertThat(badEmail.body()).doesNotContain("not-an-email");
    assertThat(unknownClient.status()).isEqualTo(404);
    assertThat(unknownDeduction.status()).isEqualTo(404);
    assertThat(badAuditTime.status()).isEqualTo(400);
    assertThat(unknownPage.status()).isEqualTo(404);
    for (Page p : List.of(badSite, blankTitle, badEmail, unknownClient, badAuditTime)) {
      assertThat(p.body()).doesNotContain("Exception").doesNotContain("at dev.veil");
    }
  }

  @Test
  void everyAnswer_carriesTheStrictContentSecurityPolicy_andPagesAreNotCached() {
    Page signIn = browser.get("/sign-in");
    Page css = browser.get("/static/console.css");
    Page js = browser.get("/static/console.js");
    Page missing = browser.get("/nope");
    signInAsAdmin();
    Page overview = browser.get("/");

    for (Page p : List.of(signIn, css, js, missing, overview)) {
      assertThat(p.header("content-security-policy"))
          .isEqualTo(
              "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self';"
                  + " form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
      assertThat(p.header("x-frame-options")).isEqualTo("DENY");
      assertThat(p.header("x-content-type-options")).isEqualTo("nosniff");
    }
    assertThat(overview.header("cache-control")).isEqualTo("no-store");
    assertThat(signIn.header("cache-control")).isEqualTo("no-store");
    assertThat(overview.body()).doesNotContain("<script>").doesNotContain("style=");
  }

  @Test
  void namesFromTheStore_areEscaped() {
    node().newClient("<script>alert(1)</script>", Role.MAPPER);
    signInAsAdmin();

    Page clients = browser.get("/clients");

    assertThat(clients.body())
        .doesNotContain("<script>alert(1)</script>")
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;");
  }

  @Test
  void theOpenAndCloseOfADeduction_goThroughTheService() {
    signInAsAdmin();
    browser.get("/deductions");
    browser.post("/deductions", "title", "Gym", "pay_method_id", "3", "request_id", "r1");

    Page closed = browser.post("/deductions/1/close");
    Page closedList = browser.get("/deductions?status=expired");
    Page reopened = browser.post("/deductions/1/open");

    assertThat(closed.location()).isEqualTo("/deductions/1");
    assertThat(closedList.body()).contains("Gym");
    assertThat(reopened.status()).isEqualTo(303);
    assertThat(browser.get("/deductions/1").body())
        .contains("Deduction 1 was opened.")
        .contains("NORMAL");
  }

  @Test
  void theDeductionList_filtersByAnyStatusPayMethodAndCreationTime() {
    console.deductions().create("Gym", "", 3, "");
    node().clock().advance(java.time.Duration.ofDays(2));
    console.deductions().create("Pool", "", 4, "");
    console.deductions().create("Sauna", "", 3, "");
    console.deductions().close(3);
    signInAsAdmin();

    Page payMethod3 = browser.get("/deductions?status=any&pay_method_id=3");
    Page open = browser.get("/deductions?status=normal&pay_method_id=3,4");
    Page early = browser.get("/deductions?status=any&created_before=2026-03-02");
    Page bad = browser.get("/deductions?status=any&pay_method_id=x");

    assertThat(payMethod3.body())
        .contains("Gym", "Sauna", "EXPIRED (manual)")
        .doesNotContain("Pool");
    assertThat(open.body()).contains("Gym", "Pool").doesNotContain("Sauna");
    assertThat(early.body()).contains("Gym").doesNotContain("Pool", "Sauna");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body()).contains("Pay method ids must be numbers");
  }

  @Test
  void aDeduction_showsItsHistory_andACloseFromAStalePage_isRefused409() {
    signInAsAdmin();
    browser.post(
        "/deductions",
        "title",
        "Trial",
        "pay_method_id",
        "3",
        "request_id",
        "r1",
        "valid_until",
        "2026-03-05");
    Page shown = browser.get("/deductions/1");
    assertThat(shown.body())
        .contains("2026-03-05 00:00:00 UTC")
        .contains("name=\"expected_version\" value=\"1\"");
    console.deductions().close(1); // someone else, after the page was shown
    console.deductions().open(1);

    Page stale = browser.post("/deductions/1/close", "expected_version", "1");
    Page history = browser.get("/deductions/1");

    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.body()).contains("the deduction is at version 3");
    assertThat(console.deductions().get(1).records().get(0).status().name()).isEqualTo("NORMAL");
    assertThat(history.body())
        .contains("History")
        .contains("CREATED")
        .contains("CLOSED")
        .contains("OPENED");
    Page current = browser.post("/deductions/1/close", "expected_version", "3");
    assertThat(current.status()).isEqualTo(303);
    assertThat(console.deductions().get(1).records().get(0).version()).isEqualTo(4);
  }

  private static List<String> secrets(String html) {
    Matcher m = CODE.matcher(html);
    List<String> out = new java.util.ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static Map<String, String> with(Map<String, String> form, String name, String value) {
    Map<String, String> all = new java.util.LinkedHashMap<>(form);
    all.put(name, value);
    return all;
  }
}
