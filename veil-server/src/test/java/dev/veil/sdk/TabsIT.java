package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.Browser;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Two tabs of one site share the identity through localStorage: refreshes, logins and logouts. */
@ExtendWith(BrowserExtension.class)
class TabsIT {
  private final Browser browser;
  private final DemoPage page;

  TabsIT(Browser browser, DemoServer server) {
    this.browser = browser;
    this.page = new DemoPage(browser, server);
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
    browser.waitFor("both tabs on one refreshed token", d -> {
      browser.switchTo(first);
      String a = page.state().token();
      browser.switchTo(second);
      String b = page.state().token();
      return a != null && a.equals(b) && !a.equals(initial);
    });
    browser.waitFor("a tab adopting the other's refresh", d -> {
      browser.switchTo(first);
      boolean adoptedInFirst = page.events().stream().anyMatch(e -> e.status().equals("adopted"));
      browser.switchTo(second);
      return adoptedInFirst || page.events().stream().anyMatch(e -> e.status().equals("adopted"));
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
}
