package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.Browser;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Cookie mode across two subdomains of one site ({@code a.pub.test} and {@code b.pub.test}, both
 * served by the demo on 127.0.0.1): one login serves both, a logout on one reaches the other and
 * stays, also against a refresh in flight or a cookie left from before {@code cookieDomain}; and a
 * sandboxed iframe, where cookies do not exist, keeps the identity in memory.
 */
@ExtendWith(BrowserExtension.class)
class CookieModeIT {
  private static final String COOKIE_MODE = "storage=cookie&cookieDomain=" + Browser.TEST_DOMAIN;

  private final Browser browser;
  private final DemoServer server;
  private final DemoPage page;

  CookieModeIT(Browser browser, DemoServer server) {
    this.browser = browser;
    this.server = server;
    this.page = new DemoPage(browser, server);
  }

  private static String uniqueEmail(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
  }

  @Test
  void cookieMode_oneLoginServesBothSubdomains_andALogoutOnOneEndsBoth() {
    page.open(DemoServer.SITE_A, COOKIE_MODE);
    String siteA = browser.driver().getWindowHandle();
    page.login("cookies-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com");
    DemoPage.State onA = page.state();
    assertThat(onA.cookie()).contains("__veil_identity=");
    assertThat(onA.stored()).as("nothing in localStorage").isNull();

    Map<String, Object> cookie = veilCookie();
    assertThat(cookie.get("domain")).isIn(".pub.test", "pub.test");
    assertThat(cookie.get("path")).isEqualTo("/");
    assertThat(cookie.get("sameSite")).isEqualTo("Lax");
    assertThat(((Number) cookie.get("expires")).doubleValue())
        .isGreaterThan(System.currentTimeMillis() / 1000.0);

    browser.newTab();
    page.open(DemoServer.SITE_B, COOKIE_MODE);
    assertThat(page.events().get(page.events().size() - 1).status()).isEqualTo("established");
    DemoPage.State onB = page.state();
    assertThat(onB.loginRequired()).isFalse();
    assertThat(onB.token()).isNotNull();

    page.logout();
    page.waitForEvent("LoggedOut", "logout");
    assertThat(page.state().cookie()).doesNotContain("__veil_identity=");

    browser.switchTo(siteA);
    page.waitForEvent("LoggedOut", "logout");
    assertThat(page.state().loginRequired()).isTrue();
    assertThat(page.state().cookie()).doesNotContain("__veil_identity=");
    assertThat(veilCookie()).isNull();
  }

  @Test
  void cookieMode_aRefreshOnOneSubdomainIsAdoptedByTheOther() {
    page.open(DemoServer.SITE_A, COOKIE_MODE);
    String siteA = browser.driver().getWindowHandle();
    page.login("cookie-refresh-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com");
    String initial = page.state().token();
    String siteB = browser.newTab();
    page.open(DemoServer.SITE_B, COOKIE_MODE);
    browser.waitFor(
        "both subdomains on one refreshed token",
        d -> {
          browser.switchTo(siteA);
          String a = page.state().token();
          browser.switchTo(siteB);
          String b = page.state().token();
          return a != null && a.equals(b) && !a.equals(initial);
        });
  }

  @Test
  void cookieMode_aRefreshAnsweredAfterALogoutOnTheOtherSubdomain_doesNotLogTheUserBackIn() {
    // Site A's refresh reaches the server, but its answer is handed to the SDK only once the cookie
    // is gone: well before A's next look at the cookie (once a second).
    onEveryPage(
        "window.__held = 0; const original = window.fetch;window.fetch = function (url, init) { if"
            + " (!String(url).endsWith('/v1/token/refresh')) return original.apply(this,"
            + " arguments); window.__held++; const answer = original.apply(this, arguments); return"
            + " new Promise((resolve) => { const poll = setInterval(() => { if"
            + " (!document.cookie.includes('__veil_identity=')) { clearInterval(poll);"
            + " resolve(answer); } }, 10); }); };");
    page.open(DemoServer.SITE_A, COOKIE_MODE);
    String siteA = browser.driver().getWindowHandle();
    page.login(uniqueEmail("cookie-race"));
    String siteB = browser.newTab();
    // Site B's own refreshes go unanswered, so only the logout changes the cookie.
    onEveryPage(
        "const original = window.fetch; window.fetch = function (url, init) { return"
            + " String(url).endsWith('/v1/token/refresh') ? new Promise(() => {}) :"
            + " original.apply(this, arguments); };");
    page.open(DemoServer.SITE_B, COOKIE_MODE);
    browser.switchTo(siteA);
    browser.waitFor(
        "site A's refresh in flight",
        d -> browser.<Number>js("return window.__held;").intValue() > 0);
    int loggedOnA = page.events().size();

    browser.switchTo(siteB);
    page.logout();
    page.waitForEvent("LoggedOut", "logout");

    browser.switchTo(siteA);
    DemoPage.Event next =
        browser.waitFor(
            "site A's answer to the logout or to its refresh",
            d -> page.events().stream().skip(loggedOnA).findFirst().orElse(null));
    assertThat(next.type()).as("site A's next event, " + page.describe()).isEqualTo("LoggedOut");
    assertThat(page.state().loginRequired()).isTrue();
    assertThat(veilCookie()).isNull();
  }

  @Test
  void cookieMode_aHostOnlyCookieFromBeforeCookieDomain_doesNotOutliveALogout() {
    page.open(DemoServer.SITE_A, "storage=cookie");
    page.login(uniqueEmail("host-only"));
    assertThat(veilCookie().get("domain")).isEqualTo(DemoServer.SITE_A);

    // The site now shares the identity with its subdomains; the user logs out.
    page.open(DemoServer.SITE_A, COOKIE_MODE);
    assertThat(page.state().loginRequired()).isFalse();
    page.logout();
    page.waitForEvent("LoggedOut", "logout");
    assertThat(veilCookie()).isNull();

    page.open(DemoServer.SITE_A, COOKIE_MODE);
    assertThat(page.events()).extracting(DemoPage.Event::status).contains("no_identity");
    assertThat(page.state().loginRequired()).isTrue();
  }

  @Test
  void cookieMode_aLoginWithCookieDomain_replacesAHostOnlyCookieThatWouldHideIt() {
    page.open(DemoServer.SITE_A, COOKIE_MODE);
    Map<String, Object> older = server.identityFor(uniqueEmail("older"));
    Map<String, Object> newer = server.identityFor(uniqueEmail("newer"));
    long now = browser.<Number>js("return Date.now();").longValue();
    newer.put("refresh_from", now + 30_000); // no refresh before the reload below
    // A host-only cookie as a page without cookieDomain left it; then a login with cookieDomain.
    browser.js(
        "document.cookie = '__veil_identity=' + encodeURIComponent(JSON.stringify(arguments[0])) +"
            + " '; path=/; SameSite=Lax';window.__veil.init({identity: arguments[1], baseUrl:"
            + " arguments[2], storage: 'cookie', cookieDomain: arguments[3]});",
        older,
        newer,
        server.apiBase(),
        Browser.TEST_DOMAIN);

    page.open(DemoServer.SITE_A, COOKIE_MODE);
    assertThat(page.state().token())
        .as("the login, after a reload")
        .isEqualTo(newer.get("advertising_token"));
    assertThat(browser.<String>js("return document.cookie;").split("__veil_identity=", -1))
        .hasSize(2);
  }

  @Test
  void cookieMode_aLogoutPageThatCallsDisconnectBeforeInit_endsTheIdentity() {
    page.open(DemoServer.SITE_A, COOKIE_MODE);
    page.login(uniqueEmail("logout-page"));
    assertThat(veilCookie()).isNotNull();

    // A logout page of site B that loads the SDK and calls disconnect() at once, without init. The
    // demo's CSP (Trusted Types) would refuse a script added by the test: bypass it for this tab.
    browser.driver().executeCdpCommand("Page.setBypassCSP", Map.of("enabled", true));
    browser.open(server.demoOrigin(DemoServer.SITE_B) + "/logged-out");
    browser.js(
        "window.__veil = {callbacks: [(type) => { if (type === 'SdkLoaded') {"
            + " window.__veil.disconnect(); window.__disconnected = true; } }]};const s ="
            + " document.createElement('script'); s.src = '/veil-sdk.js';"
            + " document.head.appendChild(s);");
    browser.waitFor(
        "disconnect() on the logout page",
        d -> browser.<Boolean>js("return window.__disconnected === true;"));
    assertThat(veilCookie()).isNull();

    page.open(DemoServer.SITE_A, COOKIE_MODE);
    assertThat(page.state().loginRequired()).isTrue();
  }

  @Test
  void inASandboxedIframe_cookieModeAndLocalStorage_keepTheIdentityInMemory_andRefreshIt() {
    browser.open(server.apiBase() + "/ops/healthz");
    // No allow-same-origin: the frame has an opaque origin, where document.cookie throws.
    browser.js(
        "const frame = document.createElement('iframe'); frame.id = 'ad'; frame.sandbox ="
            + " 'allow-scripts';frame.srcdoc = '<script src=\"' + arguments[0] +"
            + " '/static/veil-sdk.js\"></' + 'script>';document.body.appendChild(frame);",
        server.apiBase());
    browser.driver().switchTo().frame("ad");
    browser.waitFor(
        "the SDK in the frame",
        d -> browser.<Boolean>js("return !!(window.__veil && window.__veil.init);"));
    Map<String, Object> identity = server.identityFor(uniqueEmail("sandboxed"));
    browser.js(
        "window.__events = []; window.__veil.callbacks.push((type, p) => window.__events.push(type"
            + " + ':' + (p.status || '')));window.__veil.init({identity: arguments[0], baseUrl:"
            + " arguments[1], storage: 'cookie'});",
        identity,
        server.apiBase());
    assertThat(browser.<String>js("return window.__veil.getAdvertisingToken();"))
        .isEqualTo(identity.get("advertising_token"));
    assertThat(browser.<List<String>>js("return window.__events;"))
        .contains("InitCompleted:established");

    browser.waitFor(
        "a refresh in the frame",
        d ->
            browser
                .<List<String>>js("return window.__events;")
                .contains("IdentityUpdated:refreshed"));
    assertThat(browser.<String>js("return window.__veil.getAdvertisingToken();"))
        .isNotEqualTo(identity.get("advertising_token"));
    browser.js("window.__veil.disconnect();");
    assertThat(browser.<Boolean>js("return window.__veil.isLoginRequired();")).isTrue();

    // localStorage (the default) throws there too: the same, in memory.
    Map<String, Object> again = server.identityFor(uniqueEmail("sandboxed-local"));
    browser.js(
        "window.__veil.init({identity: arguments[0], baseUrl: arguments[1]});",
        again,
        server.apiBase());
    assertThat(browser.<String>js("return window.__veil.getAdvertisingToken();"))
        .isEqualTo(again.get("advertising_token"));
    browser.driver().switchTo().defaultContent();
  }

  /**
   * Runs {@code script} at the start of every page this tab opens from now on, before the page's
   * own scripts.
   */
  private void onEveryPage(String script) {
    browser
        .driver()
        .executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", script));
  }

  /** The SDK's cookie as the browser holds it (domain, path, expiry, SameSite), or null. */
  @SuppressWarnings("unchecked")
  private Map<String, Object> veilCookie() {
    Map<String, Object> answer = browser.driver().executeCdpCommand("Storage.getCookies", Map.of());
    return ((List<Map<String, Object>>) answer.get("cookies"))
        .stream().filter(c -> c.get("name").equals("__veil_identity")).findFirst().orElse(null);
  }
}
