package dev.veil.sdk;

import dev.veil.testing.Browser;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The demo publisher page in the current tab, as a user (and the test) sees it: the login form, the
 * token panel, the log of SDK events, and what the SDK holds ({@code __veil}, storage).
 */
final class DemoPage {
  /** One entry of the page's event log: event type, payload status, browser time in epoch ms. */
  record Event(String type, String status, long at) {}

  /**
   * What the SDK and the browser's storage hold, read in one script (consistent with each other).
   */
  record State(String token, Boolean loginRequired, String stored, String cookie) {}

  private static final Duration DEFAULT_WAIT = Duration.ofSeconds(20);

  private final Browser browser;
  private final DemoServer server;

  DemoPage(Browser browser, DemoServer server) {
    this.browser = browser;
    this.server = server;
  }

  /** Opens the page on 127.0.0.1 and waits until the SDK has been initialized. */
  DemoPage open() {
    return open("127.0.0.1", "");
  }

  /**
   * Opens the page on {@code host} with {@code query} and waits until the SDK has been initialized.
   */
  DemoPage open(String host, String query) {
    browser.open(server.demoUrl(host, query));
    waitForEvent("InitCompleted", null);
    return this;
  }

  /** Logs in through the form (server-side generate, then init); waits until the token shows. */
  void login(String email) {
    int before = events().size();
    WebElement field = browser.driver().findElement(By.id("email"));
    field.clear();
    field.sendKeys(email);
    browser.driver().findElement(By.id("login")).click();
    browser.waitFor(
        "the token after logging in as " + email,
        d ->
            events().size() > before
                && d.findElement(By.id("session-panel")).isDisplayed()
                && !shownToken().isEmpty());
  }

  void logout() {
    browser.driver().findElement(By.id("logout")).click();
  }

  boolean loginFormShown() {
    return browser.driver().findElement(By.id("login-panel")).isDisplayed();
  }

  boolean tokenPanelShown() {
    return browser.driver().findElement(By.id("session-panel")).isDisplayed();
  }

  String shownToken() {
    return browser.driver().findElement(By.id("advertising-token")).getText();
  }

  long shownMillis(String id) {
    return Long.parseLong(browser.driver().findElement(By.id(id)).getAttribute("data-ms"));
  }

  String text(String id) {
    return browser.driver().findElement(By.id(id)).getText();
  }

  String status() {
    return text("status");
  }

  State state() {
    Map<String, Object> s =
        browser.js(
            "return {token: window.__veil.getAdvertisingToken ? window.__veil.getAdvertisingToken()"
                + " : undefined, loginRequired: window.__veil.isLoginRequired ?"
                + " window.__veil.isLoginRequired() : undefined, stored:"
                + " localStorage.getItem('__veil_identity'), cookie: document.cookie};");
    return new State(
        (String) s.get("token"),
        (Boolean) s.get("loginRequired"),
        (String) s.get("stored"),
        (String) s.get("cookie"));
  }

  /** The identity the SDK stored in localStorage, or null. */
  Map<String, Object> storedIdentity() {
    return browser.js(
        "const v = localStorage.getItem('__veil_identity'); return v ? JSON.parse(v) : null;");
  }

  List<Event> events() {
    List<Map<String, Object>> raw =
        browser.js(
            "return Array.from(document.querySelectorAll('#events li')).map(li => ({type:"
                + " li.dataset.type, status: li.dataset.status, at: li.dataset.at}));");
    return raw.stream()
        .map(
            e ->
                new Event(
                    (String) e.get("type"),
                    (String) e.get("status"),
                    Long.parseLong((String) e.get("at"))))
        .toList();
  }

  /**
   * Waits for an event of {@code type} (and {@code status}, unless null) in the page's log; returns
   * the first.
   */
  Event waitForEvent(String type, String status) {
    return waitForEventAfter(0, type, status);
  }

  /** Waits for a new event of {@code type}, after the first {@code after} log entries. */
  Event waitForEventAfter(int after, String type, String status) {
    return browser.waitFor(
        "SDK event "
            + type
            + (status == null ? "" : " (" + status + ")")
            + (after == 0 ? "" : " after the first " + after),
        DEFAULT_WAIT,
        d ->
            events().stream()
                .skip(after)
                .filter(e -> e.type().equals(type) && (status == null || e.status().equals(status)))
                .findFirst()
                .orElse(null),
        this::describe);
  }

  /** What the page shows and holds, for failure messages. */
  String describe() {
    try {
      return "page "
          + browser.driver().getCurrentUrl()
          + ", status '"
          + status()
          + "', events "
          + events()
          + ", "
          + state();
    } catch (RuntimeException e) {
      return "page unreadable: " + e;
    }
  }
}
