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
 * served by the demo on 127.0.0.1): one login serves both, and a logout on one reaches the other.
 */
@ExtendWith(BrowserExtension.class)
class CookieModeIT {
  private static final String COOKIE_MODE = "storage=cookie&cookieDomain=" + Browser.TEST_DOMAIN;

  private final Browser browser;
  private final DemoPage page;

  CookieModeIT(Browser browser, DemoServer server) {
    this.browser = browser;
    this.page = new DemoPage(browser, server);
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
    assertThat(((Number) cookie.get("expires")).doubleValue()).isGreaterThan(System.currentTimeMillis() / 1000.0);

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
    browser.waitFor("both subdomains on one refreshed token", d -> {
      browser.switchTo(siteA);
      String a = page.state().token();
      browser.switchTo(siteB);
      String b = page.state().token();
      return a != null && a.equals(b) && !a.equals(initial);
    });
  }

  /** The SDK's cookie as the browser holds it (domain, path, expiry, SameSite), or null. */
  @SuppressWarnings("unchecked")
  private Map<String, Object> veilCookie() {
    Map<String, Object> answer = browser.driver().executeCdpCommand("Storage.getCookies", Map.of());
    return ((List<Map<String, Object>>) answer.get("cookies")).stream()
        .filter(c -> c.get("name").equals("__veil_identity"))
        .findFirst().orElse(null);
  }
}
