package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.Browser;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

/**
 * The refresh chain in a real Chromium against a real server whose tokens are refreshable after
 * {@link DemoServer#REFRESH_FROM}: timing, no CORS preflight, network outages, opt-out, the test
 * identity, expiry. Waits for conditions; never sleeps to assert timing.
 */
@ExtendWith(BrowserExtension.class)
class RefreshIT {
  /** Refresh calls the page makes, recorded by wrapping fetch (the SDK looks fetch up per call). */
  private static final String RECORD_REFRESH_CALLS =
      "window.__refreshCalls = []; const original = window.fetch;"
          + "window.fetch = function (url, init) { if (String(url).endsWith('/v1/token/refresh'))"
          + " window.__refreshCalls.push(Date.now()); return original.apply(this, arguments); };";

  /**
   * From the first line of every page: refresh calls and each identity the SDK takes (with its
   * refresh_from), in one timeline. The callback is queued before the page's own script runs.
   */
  private static final String RECORD_TIMELINE =
      "window.__timeline = []; const originalFetch = window.fetch;window.fetch = function (url,"
          + " init) { if (String(url).endsWith('/v1/token/refresh')) window.__timeline.push({kind:"
          + " 'call', at: Date.now()}); return originalFetch.apply(this, arguments);"
          + " };window.__veil = window.__veil || {callbacks:"
          + " []};window.__veil.callbacks.push((type, p) => { if (p && p.identity)"
          + " window.__timeline.push({kind: 'identity', at: Date.now(), refreshFrom:"
          + " p.identity.refresh_from}); });";

  /**
   * The SDK's random delay before each refresh (up to 2 s), and slack for a busy two-core machine.
   */
  private static final long LATENESS_MS = 4_500;

  private final Browser browser;
  private final DemoServer server;
  private final DemoPage page;

  RefreshIT(Browser browser, DemoServer server) {
    this.browser = browser;
    this.server = server;
    this.page = new DemoPage(browser, server);
  }

  private static String uniqueEmail() {
    return "user-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
  }

  @Test
  void refresh_startsAtRefreshFrom_andTheChainGoesOn_withoutPreflight() {
    long preflightsBefore = server.requests("/v1/token/refresh", "OPTIONS");
    long postsBefore = server.requests("/v1/token/refresh", "POST");
    browser
        .driver()
        .executeCdpCommand(
            "Page.addScriptToEvaluateOnNewDocument", Map.of("source", RECORD_TIMELINE));
    page.open();
    page.login(uniqueEmail());
    List<Map<String, Object>> timeline =
        browser.waitFor(
            "a login and two refreshes",
            d -> {
              List<Map<String, Object>> t = browser.js("return window.__timeline;");
              return t.stream().filter(e -> e.get("kind").equals("identity")).count() >= 3
                  ? t
                  : null;
            });

    // Every refresh call came at or after the refresh_from of the identity held then, and soon
    // after.
    long lastRefreshFrom = 0;
    int callsChecked = 0;
    for (Map<String, Object> entry : timeline) {
      long at = ((Number) entry.get("at")).longValue();
      if (entry.get("kind").equals("identity")) {
        lastRefreshFrom = ((Number) entry.get("refreshFrom")).longValue();
      } else if (lastRefreshFrom > 0) {
        assertThat(at)
            .as("refresh call %d in %s", callsChecked, timeline)
            .isBetween(lastRefreshFrom, lastRefreshFrom + LATENESS_MS);
        callsChecked++;
      }
    }
    assertThat(callsChecked).isGreaterThanOrEqualTo(2);

    // Cross-origin POSTs with a text/plain body and no custom header: the browser sent no
    // preflight.
    assertThat(server.requests("/v1/token/refresh", "POST"))
        .isGreaterThanOrEqualTo(postsBefore + 2);
    assertThat(server.requests("/v1/token/refresh", "OPTIONS")).isEqualTo(preflightsBefore);
  }

  @Test
  void outage_keepsTheIdentityAndRetriesEveryRetryPeriod_thenRefreshesWhenTheNetworkReturns() {
    page.open("127.0.0.1", "refreshRetryPeriod=1000");
    page.login(uniqueEmail());
    browser.js(RECORD_REFRESH_CALLS);
    DemoPage.State loggedIn = page.state();
    int logged = page.events().size();

    browser.offline(true);
    List<Long> calls =
        browser.waitFor(
            "three failed refresh attempts",
            d -> {
              List<Long> c = browser.js("return window.__refreshCalls;");
              return c.size() >= 3 ? c : null;
            });
    assertThat(calls.get(2) - calls.get(1)).isGreaterThanOrEqualTo(900);
    DemoPage.State offline = page.state();
    assertThat(offline.token()).isEqualTo(loggedIn.token());
    assertThat(offline.loginRequired()).isFalse();
    assertThat(offline.stored()).isEqualTo(loggedIn.stored());
    assertThat(page.events().subList(logged, page.events().size())).isEmpty();

    browser.offline(false);
    page.waitForEventAfter(logged, "IdentityUpdated", "refreshed");
    assertThat(page.state().token()).isNotEqualTo(loggedIn.token());
  }

  @Test
  void expiry_duringAnOutage_endsTheIdentityAtRefreshExpires() {
    page.open();
    Map<String, Object> generated = server.identityFor(uniqueEmail());
    long now = browser.<Number>js("return Date.now();").longValue();
    // The SDK trusts the generate body's times; these make the identity end in 3 s.
    generated.put("refresh_from", now + 500);
    generated.put("identity_expires", now + 2_000);
    generated.put("refresh_expires", now + 3_000);
    browser.offline(true);
    int logged = page.events().size();
    browser.js(
        "window.__veil.init({identity: arguments[0], baseUrl: arguments[1], refreshRetryPeriod:"
            + " 1000});",
        generated,
        server.apiBase());

    DemoPage.Event expired = page.waitForEventAfter(logged, "Expired", "expired");
    assertThat(expired.at()).isGreaterThanOrEqualTo(now + 3_000);
    assertThat(page.events().subList(logged, page.events().size()))
        .extracting(DemoPage.Event::type)
        .containsExactly("InitCompleted", "Expired");
    DemoPage.State state = page.state();
    assertThat(state.token()).isNull();
    assertThat(state.loginRequired()).isTrue();
    assertThat(state.stored()).isNull();
    assertThat(page.loginFormShown()).isTrue();
  }

  @Test
  void aRefreshThatIsNeverAnswered_timesOut_isRetried_andTheIdentityEndsAtRefreshExpires() {
    page.open();
    // A server that takes the request and never answers: fetch's promise settles only if aborted.
    browser.js(
        "window.__refreshCalls = []; const original = window.fetch;window.fetch = function (url,"
            + " init) { if (!String(url).endsWith('/v1/token/refresh')) return original.apply(this,"
            + " arguments); window.__refreshCalls.push(Date.now()); return new Promise((resolve,"
            + " reject) => { if (init && init.signal) init.signal.addEventListener('abort', () =>"
            + " reject(new DOMException('aborted', 'AbortError'))); }); };");
    Map<String, Object> generated = server.identityFor(uniqueEmail());
    long now = browser.<Number>js("return Date.now();").longValue();
    generated.put("refresh_from", now + 500);
    generated.put("identity_expires", now + 12_000);
    generated.put("refresh_expires", now + 14_000);
    int logged = page.events().size();
    // Retry period 1 s: each attempt is given 4 s (four periods), then aborted and tried again.
    browser.js(
        "window.__veil.init({identity: arguments[0], baseUrl: arguments[1], refreshRetryPeriod:"
            + " 1000});",
        generated,
        server.apiBase());

    DemoPage.Event expired = page.waitForEventAfter(logged, "Expired", "expired");

    List<Long> calls = browser.js("return window.__refreshCalls;");
    assertThat(calls)
        .as("attempts after timeouts, not one request left hanging for good")
        .hasSizeGreaterThanOrEqualTo(2);
    assertThat(calls.get(1) - calls.get(0))
        .as("the first attempt's timeout")
        .isGreaterThanOrEqualTo(4_000);
    assertThat(expired.at()).isGreaterThanOrEqualTo(now + 14_000);
    assertThat(page.state().token()).isNull();
  }

  @Test
  void optOutRecordedThroughTheApi_endsTheSessionAtTheNextRefresh() {
    String email = uniqueEmail();
    page.open();
    page.login(email);
    int logged = page.events().size();

    server.optOut(email);
    page.waitForEventAfter(logged, "OptedOut", "optout");
    DemoPage.State state = page.state();
    assertThat(state.token()).isNull();
    assertThat(state.loginRequired()).isTrue();
    assertThat(state.stored()).isNull();
    assertThat(page.loginFormShown()).isTrue();
    assertThat(page.status()).contains("opted out");

    // Logging in again does not bring a token back.
    browser.driver().findElement(By.id("email")).clear();
    browser.driver().findElement(By.id("email")).sendKeys(email);
    browser.driver().findElement(By.id("login")).click();
    browser.waitFor("the opt-out notice", d -> page.text("login-error").contains("opted out"));
    assertThat(page.state().loginRequired()).isTrue();
  }

  @Test
  void testIdentity_refreshAnswersOptOut_andTheSdkEndsTheIdentity() {
    page.open();
    page.login("validate@example.com");
    int logged = page.events().size();
    page.waitForEventAfter(logged, "OptedOut", "optout");
    assertThat(page.state().stored()).isNull();
    assertThat(page.state().loginRequired()).isTrue();
  }
}
