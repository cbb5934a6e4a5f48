package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.Browser;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tabs of one site share the identity through localStorage: refreshes, logins and logouts; tabs do
 * not all send the same refresh, nor refresh in a loop when the computer's clock runs ahead.
 */
@ExtendWith(BrowserExtension.class)
class TabsIT {
  /** Records each refresh call of the page: when (page clock) and the refresh token it sent. */
  private static final String RECORD_REFRESH_CALLS =
      "window.__refreshCalls = []; const originalFetch = window.fetch;window.fetch = function (url,"
          + " init) { if (String(url).endsWith('/v1/token/refresh'))"
          + " window.__refreshCalls.push({at: Date.now(), token:"
          + " JSON.parse(init.body).refresh_token}); return originalFetch.apply(this, arguments);"
          + " };";

  private final Browser browser;
  private final DemoServer server;
  private final DemoPage page;

  TabsIT(Browser browser, DemoServer server) {
    this.browser = browser;
    this.server = server;
    this.page = new DemoPage(browser, server);
  }

  private static String uniqueEmail(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
  }

  /**
   * Makes the current tab's next documents run {@code script} before any of their own (and before
   * the SDK), then opens the demo page with {@code query}.
   */
  private void openWithStartScript(String script, String query) {
    browser
        .driver()
        .executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", script));
    page.open("127.0.0.1", query);
  }

  /**
   * The SDK's randomness in this page, fixed: its jitter before each refresh is {@code fraction} of
   * 2 s.
   */
  private static String fixedJitter(double fraction) {
    return "Math.random = () => " + fraction + ";";
  }

  private List<Map<String, Object>> refreshCalls() {
    return browser.js("return window.__refreshCalls;");
  }

  @Test
  void twoTabs_shareRefreshes_andALogoutInOneLogsTheOtherOut() {
    page.open();
    String first = browser.driver().getWindowHandle();
    page.login("tabs-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com");
    String initial = page.state().token();

    String second = browser.newTab();
    page.open();
    assertThat(page.state().loginRequired()).isFalse();
    assertThat(page.tokenPanelShown()).isTrue();

    // Refreshes keep happening (every 2 s); between two of them both tabs must hold the same token.
    browser.waitFor(
        "both tabs on one refreshed token",
        d -> {
          browser.switchTo(first);
          String a = page.state().token();
          browser.switchTo(second);
          String b = page.state().token();
          return a != null && a.equals(b) && !a.equals(initial);
        });
    browser.waitFor(
        "a tab adopting the other's refresh",
        d -> {
          browser.switchTo(first);
          boolean adoptedInFirst =
              page.events().stream().anyMatch(e -> e.status().equals("adopted"));
          browser.switchTo(second);
          return adoptedInFirst
              || page.events().stream().anyMatch(e -> e.status().equals("adopted"));
        });

    browser.switchTo(second);
    page.logout();
    page.waitForEvent("LoggedOut", "logout");
    browser.switchTo(first);
    page.waitForEvent("LoggedOut", "logout");
    assertThat(page.loginFormShown()).isTrue();
    assertThat(page.state().loginRequired()).isTrue();
  }

  @Test
  void aLoginInOneTab_reachesATabThatWasLoggedOut() {
    page.open();
    String first = browser.driver().getWindowHandle();
    browser.newTab();
    page.open();
    assertThat(page.loginFormShown()).isTrue();
    page.login("login-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com");

    browser.switchTo(first);
    page.waitForEvent("IdentityUpdated", "adopted");
    assertThat(page.tokenPanelShown()).isTrue();
    assertThat(page.state().loginRequired()).isFalse();
  }

  @Test
  void threeTabsOnOneIdentity_sendItsRefreshOnce_theOthersAdoptTheAnswer() {
    // Fixed random jitters (0, 1.5 s, 1.98 s) instead of chance: the first tab's answer must reach
    // the
    // others before their own attempts, which then take it instead of sending the same token again.
    List<String> tabs = new ArrayList<>();
    double[] jitters = {0.0, 0.75, 0.99};
    for (double jitter : jitters) {
      tabs.add(tabs.isEmpty() ? browser.driver().getWindowHandle() : browser.newTab());
      openWithStartScript(fixedJitter(jitter) + RECORD_REFRESH_CALLS, "");
    }
    Map<String, Object> identity = server.identityFor(uniqueEmail("jitter"));
    long now = browser.<Number>js("return Date.now();").longValue();
    identity.put(
        "refresh_from", now + 1_500); // the SDK trusts the body's times: due soon in every tab
    browser.js(
        "window.__veil.init({identity: arguments[0], baseUrl: arguments[1]});",
        identity,
        server.apiBase());
    String original = (String) identity.get("advertising_token");

    for (String tab : tabs) {
      browser.switchTo(tab);
      browser.waitFor(
          "the refreshed token in every tab",
          d -> {
            String token = page.state().token();
            return token != null && !token.equals(original);
          });
    }
    long sends = 0;
    for (String tab : tabs) {
      browser.switchTo(tab);
      sends +=
          refreshCalls().stream()
              .filter(c -> c.get("token").equals(identity.get("refresh_token")))
              .count();
    }
    assertThat(sends)
        .as("requests that sent the first refresh token, over three tabs")
        .isEqualTo(1);
  }

  @Test
  void twoTabsWithAClockAheadOfTheServer_doNotRefreshInALoop() {
    // This computer's clock runs 30 s ahead: every pair the server issues (refreshable after 2 s)
    // looks due the moment it arrives, in both tabs. Fixed jitters keep the tabs from racing.
    String clockAhead =
        "{ const realNow = Date.now; Date.now = () => realNow.call(Date) + 30000; }";
    String query = "refreshRetryPeriod=2500";
    openWithStartScript(clockAhead + fixedJitter(0.0) + RECORD_REFRESH_CALLS, query);
    String first = browser.driver().getWindowHandle();
    page.login(uniqueEmail("skew"));
    browser.newTab();
    openWithStartScript(clockAhead + fixedJitter(0.5) + RECORD_REFRESH_CALLS, query);
    // From the first fresh pair the second tab takes on (refreshed itself, or adopted), each tab
    // refreshes no sooner than a retry period after its last new pair: not as soon as it adopts
    // one.
    long since = page.waitForEventAfter(0, "IdentityUpdated", null).at();
    String second = browser.driver().getWindowHandle();
    long next =
        browser.waitFor(
            "a refresh call in either tab after " + since,
            d -> {
              List<Long> later = new ArrayList<>();
              for (String tab : List.of(first, second)) {
                browser.switchTo(tab);
                refreshCalls().stream()
                    .map(c -> ((Number) c.get("at")).longValue())
                    .filter(at -> at > since)
                    .forEach(later::add);
              }
              return later.stream().min(Long::compare).orElse(null);
            });
    assertThat(next - since)
        .as("time from a new pair to the next refresh call")
        .isGreaterThanOrEqualTo(2_400);
    browser.switchTo(first);
    assertThat(page.state().loginRequired()).isFalse();
  }
}
