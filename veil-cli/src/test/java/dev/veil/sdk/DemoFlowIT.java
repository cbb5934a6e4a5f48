package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.Browser;
import dev.veil.testing.Http;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

/**
 * The publisher flow of the request in a real Chromium against a real {@code veil serve --demo}:
 * log in → the demo's server side generates → {@code init} → token shown → refreshed → sent to a
 * bidder → logout; a reload; the page's Content Security Policy.
 */
@ExtendWith(BrowserExtension.class)
class DemoFlowIT {
  /** Collects CSP violations from the first line of every page, before any page script runs. */
  private static final String RECORD_CSP_VIOLATIONS =
      "window.__cspViolations = [];"
          + "document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push("
          + "e.effectiveDirective + ' ' + e.blockedURI));";

  private final Browser browser;
  private final DemoServer server;
  private final DemoPage page;

  DemoFlowIT(Browser browser, DemoServer server) {
    this.browser = browser;
    this.server = server;
    this.page = new DemoPage(browser, server);
  }

  @Test
  void demo_loginShowRefreshBidLogout() {
    page.open();
    assertThat(page.loginFormShown()).isTrue();
    assertThat(page.state().loginRequired()).isTrue();

    long before = System.currentTimeMillis();
    page.login("reader@example.com");
    String first = page.shownToken();
    assertThat(page.state().token()).isEqualTo(first);
    assertThat(page.storedIdentity()).containsEntry("advertising_token", first);
    assertThat(page.shownMillis("identity-expires")).isGreaterThan(before);
    assertThat(page.shownMillis("refresh-from"))
        .isBetween(before, page.shownMillis("identity-expires"));
    assertThat(page.text("bid-request")).contains("\"id\": \"" + first + "\"");
    assertThat(page.status()).startsWith("Logged in");
    // Durations as people read them ("in 1 min 59 s"), not "(in 119 s)" (tokens here live 60 and
    // 120 s).
    assertReadableDuration(page.text("identity-expires"));
    assertReadableDuration(page.text("refresh-expires"));
    assertReadableDuration(page.text("refresh-from"));
    // This server refreshes after 2 s: nothing to explain about waiting for a refresh.
    assertThat(browser.driver().findElement(By.id("refresh-hint")).isDisplayed()).isFalse();
    browser.js("window.scrollTo(0, 0);");
    assertNotBlank(browser.screenshot("demo-logged-in"));

    page.waitForEvent("IdentityUpdated", "refreshed");
    browser.waitFor(
        "the refreshed token on the page",
        d -> !page.shownToken().equals(first) && page.shownToken().equals(page.state().token()));

    browser.driver().findElement(By.id("send-bid")).click();
    browser.waitFor("the bidder's answer", d -> !page.text("bid-result").isEmpty());
    assertThat(browser.driver().findElement(By.id("bid-result")).getAttribute("data-match"))
        .isEqualTo("true");
    assertThat(browser.driver().findElement(By.id("bid-result")).getAttribute("data-decryption"))
        .isEqualTo("SUCCESS");
    assertThat(page.text("bid-result"))
        .contains("received the token unchanged", "decrypted it with its own key");
    // What the bidder read is what the token holds: the user's advertising id, an email identity.
    assertThat(browser.driver().findElement(By.id("bid-decrypted")).isDisplayed()).isTrue();
    assertThat(page.text("decrypted-advertising-id"))
        .isEqualTo(server.advertisingIdOf("reader@example.com"));
    assertThat(page.text("decrypted-identity-type")).isEqualTo("email");
    assertReadableDuration(page.text("decrypted-expires"));
    browser.js("document.getElementById('bid-result').scrollIntoView();");
    assertNotBlank(browser.screenshot("demo-bid-decrypted"));

    page.logout();
    page.waitForEvent("LoggedOut", "logout");
    assertThat(page.loginFormShown()).isTrue();
    assertThat(page.tokenPanelShown()).isFalse();
    DemoPage.State after = page.state();
    assertThat(after.token()).isNull();
    assertThat(after.loginRequired()).isTrue();
    assertThat(after.stored()).isNull();
  }

  @Test
  void demo_hasAFavicon() {
    Http demo = new Http(server.demoUrl("127.0.0.1", "").replaceAll("/$", ""));
    for (String path : List.of("/favicon.svg", "/favicon.ico")) {
      Http.Response icon = demo.get(path, null);
      assertThat(icon.code()).as(path).isEqualTo(200);
      assertThat(icon.header("Content-Type")).as(path).isEqualTo("image/svg+xml");
      assertThat(icon.body()).as(path).startsWith("<svg");
    }
    assertThat(demo.get("/", null).body()).contains("<link rel=\"icon\" href=\"/favicon.svg\"");
  }

  private static final java.util.regex.Pattern DURATION =
      java.util.regex.Pattern.compile(
          "\\((?:in )?(?:(\\d+) days? ?)?(?:(\\d+) h ?)?(?:(\\d+) min ?)?(?:(\\d+) s)?(?:"
              + " ago)?\\)$|\\(now\\)$");

  /** A time shown with a duration in the largest units that fit: no "90 s", no "(in 259200 s)". */
  private static void assertReadableDuration(String shown) {
    java.util.regex.Matcher m = DURATION.matcher(shown);
    assertThat(m.find()).as("a readable duration at the end of '%s'", shown).isTrue();
    int[] bounds = {Integer.MAX_VALUE, 24, 60, 60};
    for (int unit = 0; unit < bounds.length; unit++) {
      String count = m.group(unit + 1);
      if (count != null) {
        assertThat(Integer.parseInt(count))
            .as("unit %d of '%s'", unit, shown)
            .isLessThan(bounds[unit]);
      }
    }
  }

  /** A screenshot of a rendered page has many colours; a blank or failed one has one or two. */
  private static void assertNotBlank(java.awt.image.BufferedImage image) {
    java.util.Set<Integer> colours = new java.util.HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 7) {
      for (int x = 0; x < image.getWidth(); x += 7) {
        colours.add(image.getRGB(x, y));
      }
    }
    assertThat(image.getWidth()).isGreaterThan(800);
    assertThat(colours).as("distinct colours in the screenshot").hasSizeGreaterThan(8);
  }

  @Test
  void demo_tokenIsARealOneForTheUser() {
    page.open();
    page.login("validate@example.com");
    assertThat(server.validates(page.state().token(), "validate@example.com")).isTrue();
  }

  @Test
  void demo_unknownInputIsRefusedOnThePage() {
    page.open();
    browser.driver().findElement(By.id("email")).sendKeys("not-an-email");
    // The input's own validation would stop a user; a script posting the form gets the server's
    // answer.
    browser.js("document.getElementById('email').type = 'text';");
    browser.driver().findElement(By.id("login")).click();
    browser.waitFor("the login error", d -> !page.text("login-error").isEmpty());
    assertThat(page.text("login-error")).contains("not a valid email");
    assertThat(page.state().loginRequired()).isTrue();
  }

  @Test
  void reload_keepsTheIdentityWithoutALogin() {
    page.open();
    page.login("reload@example.com");
    browser.driver().navigate().refresh();
    DemoPage.Event init = page.waitForEvent("InitCompleted", null);
    assertThat(init.status()).isEqualTo("established");
    assertThat(page.tokenPanelShown()).isTrue();
    DemoPage.State state = page.state();
    assertThat(state.loginRequired()).isFalse();
    assertThat(state.stored()).contains(state.token());
  }

  @Test
  void demoPages_sendAStrictContentSecurityPolicy() {
    Http demo = new Http(server.demoUrl("127.0.0.1", "").replaceAll("/$", ""));
    for (String path : List.of("/", "/demo.js", "/veil-sdk.js")) {
      String csp = demo.get(path, null).header("Content-Security-Policy");
      assertThat(csp)
          .as(path)
          .contains(
              "script-src 'self';", "default-src 'none'", "require-trusted-types-for 'script'")
          .doesNotContain("unsafe-inline", "unsafe-eval", "*");
    }
    String html = demo.get("/", null).body();
    assertThat(html).doesNotContainPattern("<script(?![^>]*\\ssrc=)"); // no inline script
    assertThat(html).doesNotContain("vk1."); // the demo's API key stays on its server
  }

  @Test
  void csp_sdkAndPageRunWithoutAViolation_whileInlineScriptAndEvalAreBlocked() {
    browser
        .driver()
        .executeCdpCommand(
            "Page.addScriptToEvaluateOnNewDocument", Map.of("source", RECORD_CSP_VIOLATIONS));
    page.open();
    page.login("csp@example.com");
    page.waitForEvent("IdentityUpdated", "refreshed");
    page.logout();
    page.waitForEvent("LoggedOut", null);
    assertThat(browser.<List<Object>>js("return window.__cspViolations;")).isEmpty();

    String inline =
        browser.js(
            "try { const s = document.createElement('script');"
                + " s.textContent = 'window.__inlineRan = true'; document.head.appendChild(s);"
                + " return String(window.__inlineRan === true); } catch (e) { return e.name; }");
    assertThat(inline).isNotEqualTo("true");
    // Scripts run by the test itself may eval (DevTools is exempt); a task the page runs later may
    // not.
    browser.js(
        "setTimeout(() => { try { window.__evalResult = String(window.eval('40 + 2')); }"
            + " catch (e) { window.__evalResult = e.name; } }, 0);");
    String eval =
        browser.waitFor("the eval attempt", d -> browser.<String>js("return window.__evalResult;"));
    assertThat(eval).isEqualTo("EvalError");
    browser.waitFor(
        "the violations to be reported",
        d -> !browser.<List<Object>>js("return window.__cspViolations;").isEmpty());
  }
}
