package dev.veil.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.chromium.ChromiumNetworkConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real headless Chromium driven through chromedriver (Selenium), for the browser SDK's tests.
 * Host names under {@value #TEST_DOMAIN} resolve to 127.0.0.1, so a test can use several sites
 * (cookie domains) while all traffic stays on loopback. Each instance has its own fresh profile,
 * deleted on {@link #close()}. Not thread-safe (neither is a WebDriver).
 *
 * <p>{@link #assumeAvailable()} decides what happens without Chromium or chromedriver: the calling
 * tests are skipped after a loud notice on stderr, or fail when env {@value #REQUIRE_ENV} is {@code
 * 1} (as {@code .ci/run} sets it).
 */
public final class Browser implements AutoCloseable {
  public static final String REQUIRE_ENV = "VEIL_REQUIRE_BROWSER";

  /** Every host name under this domain resolves to 127.0.0.1 in this browser. */
  public static final String TEST_DOMAIN = "pub.test";

  static final Path CHROMIUM = Path.of(env("VEIL_CHROMIUM", "/usr/bin/chromium"));
  static final Path CHROMEDRIVER = Path.of(env("VEIL_CHROMEDRIVER", "/usr/bin/chromedriver"));
  private static final Duration DEFAULT_WAIT = Duration.ofSeconds(20);
  private static volatile boolean bannerShown;

  /**
   * Selenium looks for a DevTools binding per Chromium version and warns when it has none; the
   * tests need none.
   */
  @SuppressWarnings(
      "unused") // held: java.util.logging keeps loggers weakly and would forget the level
  private static final java.util.logging.Logger CDP_VERSION_LOGGER =
      quiet("org.openqa.selenium.devtools.CdpVersionFinder");

  private final ChromeDriver driver;
  private final Path profile;

  private Browser(ChromeDriver driver, Path profile) {
    this.driver = driver;
    this.profile = profile;
  }

  /**
   * Skips the calling tests (or fails them, with {@value #REQUIRE_ENV}=1) unless the browser is
   * installed.
   */
  public static void assumeAvailable() {
    String reason = unavailableReason();
    if (reason == null) {
      return;
    }
    if (required()) {
      fail(reason + "; " + REQUIRE_ENV + "=1 demands the browser tests");
    }
    announceSkip(reason);
    Assumptions.abort("browser SDK tests skipped: " + reason);
  }

  /**
   * Why the browser tests cannot run here, or null when Chromium and chromedriver are installed.
   */
  public static String unavailableReason() {
    for (Path p : List.of(CHROMIUM, CHROMEDRIVER)) {
      if (!Files.isExecutable(p)) {
        return p + " is missing (install the Debian packages chromium and chromium-driver)";
      }
    }
    return null;
  }

  /**
   * Whether env {@value #REQUIRE_ENV} demands the browser tests (a missing browser is a failure).
   */
  public static boolean required() {
    return "1".equals(System.getenv(REQUIRE_ENV));
  }

  /** Prints, once per run, a notice on stderr that the browser tests are skipped, and why. */
  public static void announceSkip(String reason) {
    if (!bannerShown) {
      bannerShown = true;
      System.err.println(
          "\n**********************************************************************");
      System.err.println("* SKIPPING browser SDK tests: " + reason);
      System.err.println("* Set " + REQUIRE_ENV + "=1 to make this a failure (.ci/run does).");
      System.err.println(
          "**********************************************************************\n");
    }
  }

  /** Starts headless Chromium with a fresh profile (call {@link #assumeAvailable()} first). */
  public static Browser start() {
    Path profile;
    try {
      profile = Files.createTempDirectory("veil-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--user-data-dir=" + profile,
        "--window-size=1200,900",
        // Every tab runs its timers on time (tests open several), and http:// stays http://.
        "--disable-background-timer-throttling",
        "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
        "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable",
        "--host-resolver-rules=MAP *." + TEST_DOMAIN + " 127.0.0.1");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    try {
      return new Browser(new ChromeDriver(service, options), profile);
    } catch (RuntimeException e) {
      deleteTree(profile);
      throw e;
    }
  }

  public ChromeDriver driver() {
    return driver;
  }

  /**
   * Saves a screenshot of the current tab as {@code target/screenshots/<name>.png} of the module
   * under test (for a person to look at) and returns the decoded image (for the test to check).
   */
  public java.awt.image.BufferedImage screenshot(String name) {
    byte[] png = driver.getScreenshotAs(org.openqa.selenium.OutputType.BYTES);
    try {
      Path dir = Files.createDirectories(Path.of("target", "screenshots"));
      Files.write(dir.resolve(name + ".png"), png);
      java.awt.image.BufferedImage image =
          javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(png));
      if (image == null) {
        throw new IllegalStateException("the screenshot " + name + " is not a PNG image");
      }
      return image;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the screenshot " + name, e);
    }
  }

  public void open(String url) {
    driver.get(url);
  }

  /**
   * Runs {@code script} (a function body; {@code arguments[i]} are the args) in the current tab.
   */
  @SuppressWarnings({
    "unchecked",
    "TypeParameterUnusedInFormals"
  }) // the caller names what the script returns
  public <T> T js(String script, Object... args) {
    return (T) ((JavascriptExecutor) driver).executeScript(script, args);
  }

  /**
   * Runs an asynchronous {@code script} that ends by calling {@code arguments[arguments.length -
   * 1]} with its result.
   */
  @SuppressWarnings({
    "unchecked",
    "TypeParameterUnusedInFormals"
  }) // the caller names what the script returns
  public <T> T jsAsync(String script, Object... args) {
    return (T) ((JavascriptExecutor) driver).executeAsyncScript(script, args);
  }

  /** Polls {@code condition} until it returns a non-null, non-false value; fails after 20 s. */
  public <T> T waitFor(String what, Function<WebDriver, T> condition) {
    return waitFor(what, DEFAULT_WAIT, condition);
  }

  public <T> T waitFor(String what, Duration timeout, Function<WebDriver, T> condition) {
    return waitFor(what, timeout, condition, () -> "");
  }

  /**
   * As {@link #waitFor(String, Duration, Function)}, adding {@code diagnosis} to the timeout's
   * message.
   */
  public <T> T waitFor(
      String what, Duration timeout, Function<WebDriver, T> condition, Supplier<String> diagnosis) {
    return new WebDriverWait(driver, timeout, Duration.ofMillis(50))
        .withMessage(() -> "waiting for " + what + "; " + diagnosis.get())
        .until(condition);
  }

  /** Opens a new tab and switches to it; returns its handle. */
  public String newTab() {
    driver.switchTo().newWindow(org.openqa.selenium.WindowType.TAB);
    return driver.getWindowHandle();
  }

  public void switchTo(String handle) {
    driver.switchTo().window(handle);
  }

  /** Cuts the network (requests fail as when the computer is offline) or restores it. */
  public void offline(boolean offline) {
    ChromiumNetworkConditions conditions = new ChromiumNetworkConditions();
    conditions.setOffline(offline);
    driver.setNetworkConditions(conditions);
  }

  /**
   * Back to a clean state between tests: one new tab on about:blank (the old tabs' pages, timers
   * and scripts added through DevTools are gone), the network on, no cookies, and nothing stored
   * for {@code origins}.
   */
  public void reset(List<String> origins) {
    List<String> old = new ArrayList<>(driver.getWindowHandles());
    String fresh = newTab();
    for (String handle : old) {
      driver.switchTo().window(handle).close();
    }
    driver.switchTo().window(fresh);
    offline(false);
    driver.executeCdpCommand("Network.clearBrowserCookies", Map.of());
    for (String origin : origins) {
      driver.executeCdpCommand(
          "Storage.clearDataForOrigin", Map.of("origin", origin, "storageTypes", "all"));
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      deleteTree(profile);
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temp directory is harmless
    }
  }

  private static java.util.logging.Logger quiet(String name) {
    java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
    logger.setLevel(java.util.logging.Level.SEVERE);
    return logger;
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
