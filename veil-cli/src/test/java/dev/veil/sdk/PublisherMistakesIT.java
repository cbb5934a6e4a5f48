package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.Browser;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a publisher's page may get wrong, or a browser may refuse, in a real Chromium: the SDK keeps
 * the user logged in and says what is wrong in the console instead of failing silently.
 */
@ExtendWith(BrowserExtension.class)
class PublisherMistakesIT {
  /** Collects the page's console warnings in {@code window.__warnings}. */
  private static final String RECORD_WARNINGS =
      "window.__warnings = []; const originalWarn = console.warn;"
          + "console.warn = function () { window.__warnings.push(Array.from(arguments).join(' '));"
          + " return originalWarn.apply(console, arguments); };";

  private final Browser browser;
  private final DemoServer server;
  private final DemoPage page;

  PublisherMistakesIT(Browser browser, DemoServer server) {
    this.browser = browser;
    this.server = server;
    this.page = new DemoPage(browser, server);
  }

  private static String uniqueEmail(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
  }

  private List<String> warnings() {
    return browser.js("return window.__warnings;");
  }

  @Test
  void aForgottenBaseUrl_withTheScriptOnThePublishersOwnOrigin_warnsOnce_andKeepsTheIdentity() {
    // The demo hosts the SDK itself, as a site bundling the npm package does: without baseUrl the
    // refresh goes to the publisher's own server, which answers 404.
    page.open();
    browser.js(RECORD_WARNINGS);
    Map<String, Object> identity = server.identityFor(uniqueEmail("no-base-url"));
    long now = browser.<Number>js("return Date.now();").longValue();
    identity.put("refresh_from", now + 200);
    browser.js("window.__veil.init({identity: arguments[0], refreshRetryPeriod: 1000});", identity);

    List<String> warned =
        browser.waitFor(
            "a console warning about the refresh's answer",
            d ->
                warnings().stream().anyMatch(w -> w.contains("answered HTTP 404"))
                    ? warnings()
                    : null);
    assertThat(warned)
        .filteredOn(w -> w.contains("/v1/token/refresh answered HTTP 404"))
        .singleElement()
        .asString()
        .contains("is baseUrl the Veil API?");
    DemoPage.State state = page.state();
    assertThat(state.token()).isEqualTo(identity.get("advertising_token"));
    assertThat(state.loginRequired()).isFalse();
  }

  @Test
  void aFullLocalStorage_keepsTheIdentityInMemory_withAWarning_andRefreshesIt() {
    page.open();
    browser.js(RECORD_WARNINGS);
    // Fill this origin's localStorage until not even 16 more characters fit.
    long filled =
        browser
            .<Number>js(
                "let n = 0, chunk = 1 << 20;while (chunk >= 16) { try {"
                    + " localStorage.setItem('filler-' + n, 'x'.repeat(chunk)); n++; } catch (e) {"
                    + " chunk = chunk >> 1; } } return n;")
            .longValue();
    assertThat(filled).isPositive();
    int before = page.events().size();

    page.login(uniqueEmail("full-storage"));
    String token = page.state().token();
    assertThat(token).isNotNull();
    assertThat(page.state().stored()).isNull();
    assertThat(warnings())
        .anyMatch(w -> w.contains("cannot write localStorage") && w.contains("memory only"));

    page.waitForEventAfter(before, "IdentityUpdated", "refreshed");
    assertThat(page.state().token()).isNotEqualTo(token);
    assertThat(page.state().loginRequired()).isFalse();
  }
}
