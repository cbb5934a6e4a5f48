package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.Browser;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The SDK as Veil serves it ({@code /static/veil-sdk.js} and the versioned file), loaded with
 * {@code async} into a page that queued callbacks before it arrived.
 */
@ExtendWith(BrowserExtension.class)
class AsyncLoadingIT {
  private final Browser browser;
  private final DemoServer server;

  AsyncLoadingIT(Browser browser, DemoServer server) {
    this.browser = browser;
    this.server = server;
  }

  /** A page on the API's origin (a plain document) that queues a callback, then adds the script. */
  private void loadAsync(String path, String integrity) {
    browser.open(server.apiBase() + "/ops/healthz");
    browser.js(
        "window.__events = [];window.__veil = window.__veil || {callbacks:"
            + " []};window.__veil.callbacks.push((type, payload) => window.__events.push([type,"
            + " payload.status || null]));const s = document.createElement('script'); s.async ="
            + " true; s.src = arguments[0];if (arguments[1]) { s.integrity = arguments[1];"
            + " s.crossOrigin = 'anonymous'; }document.head.appendChild(s);",
        path,
        integrity);
    browser.waitFor(
        "SdkLoaded for the callback queued before the script",
        d -> events().contains(List.of("SdkLoaded")));
  }

  private List<List<Object>> events() {
    List<List<Object>> raw = browser.js("return window.__events;");
    return raw.stream().map(e -> e.get(1) == null ? List.of(e.get(0)) : e).toList();
  }

  @Test
  void asyncScript_runsTheQueuedCallback_andInitWorksWithTheDefaultBaseUrl() {
    loadAsync("/static/veil-sdk.js", null);
    assertThat(browser.<String>js("return window.__veil.version;")).isNotBlank();

    // Before init the promise waits; init with a generate body (default baseUrl: where the script
    // came from).
    browser.js(
        "window.__tokenPromise = window.__veil.getAdvertisingTokenAsync().then(t =>"
            + " window.__asyncToken = t);");
    Map<String, Object> identity = server.identityFor("async@example.com");
    browser.js("window.__veil.init({identity: arguments[0]});", identity);
    String token =
        browser.waitFor(
            "getAdvertisingTokenAsync to resolve",
            d -> browser.<String>js("return window.__asyncToken;"));
    assertThat(token).isEqualTo(identity.get("advertising_token"));
    assertThat(events()).contains(List.of("InitCompleted", "established"));

    // A callback pushed after loading gets SdkLoaded and the current state at once.
    List<List<Object>> late =
        browser.js(
            "const seen = [];window.__veil.callbacks.push((type, payload) => seen.push([type,"
                + " payload.advertisingToken || null]));return seen;");
    assertThat(late)
        .containsExactly(Arrays.asList("SdkLoaded", null), List.of("InitCompleted", token));

    // The refresh goes to the same origin the script came from, and succeeds.
    browser.waitFor("a refresh", d -> events().contains(List.of("IdentityUpdated", "refreshed")));
  }

  @Test
  void versionedScript_loadsWithSubresourceIntegrity() throws Exception {
    String version =
        server
            .api()
            .get("/static/veil-sdk.js", null)
            .body()
            .replaceAll("(?s).*const VERSION = '([^']+)';.*", "$1");
    String path = "/static/veil-sdk-" + version + ".js";
    byte[] bytes = server.api().get(path, null).body().getBytes(StandardCharsets.UTF_8);
    String integrity =
        "sha384-"
            + Base64.getEncoder()
                .encodeToString(MessageDigest.getInstance("SHA-384").digest(bytes));
    loadAsync(path, integrity);
    assertThat(browser.<String>js("return window.__veil.version;")).isEqualTo(version);
    assertThat(browser.<Boolean>js("return window.__veil.isLoginRequired() === undefined;"))
        .isTrue();
  }

  @Test
  void getAdvertisingTokenAsync_rejectsWhenNoOneIsLoggedIn() {
    loadAsync("/static/veil-sdk.js", null);
    String outcome =
        browser.jsAsync(
            "const done = arguments[arguments.length -"
                + " 1];window.__veil.getAdvertisingTokenAsync().then(t => done('resolved ' + t), e"
                + " => done('rejected ' + e.message));window.__veil.init({});");
    assertThat(outcome).startsWith("rejected").contains("must log in");
  }
}
