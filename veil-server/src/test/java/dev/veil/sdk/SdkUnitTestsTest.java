package dev.veil.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Runs the browser SDK's own unit tests ({@code sdk-js/test}: the refresh scheduler and the whole
 * SDK over a fake clock, fake fetch and fake storage) with {@code node --test}, so {@code ./mvnw
 * verify} covers them. Without Node they are skipped after a notice on stderr, or fail when env
 * {@value dev.veil.testing.Browser#REQUIRE_ENV} is {@code 1}: the SDK's tests need Node as much as
 * the browser.
 */
class SdkUnitTestsTest {
  private static final Path SDK =
      Path.of(System.getProperty("basedir", "."), "..", "sdk-js").normalize();

  @Test
  void sdkUnitTests_pass() throws IOException, InterruptedException {
    String node = findNode();
    Path output = Files.createTempFile("veil-sdk-node-test-", ".txt");
    try {
      Process process =
          new ProcessBuilder(node, "--test", "test/")
              .directory(SDK.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(5, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        fail("node --test did not finish within 5 minutes");
      }
      String report = Files.readString(output, StandardCharsets.UTF_8);
      System.out.println(report);
      assertThat(process.exitValue()).as("node --test in %s:\n%s", SDK, report).isZero();
      assertThat(report).containsPattern("# pass [1-9]").contains("# fail 0");
    } finally {
      Files.deleteIfExists(output);
    }
  }

  private static String findNode() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path candidate = Path.of(dir, "node");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    String reason = "node is not on the PATH (install the Debian package nodejs)";
    if ("1".equals(System.getenv(dev.veil.testing.Browser.REQUIRE_ENV))) {
      fail(reason + "; " + dev.veil.testing.Browser.REQUIRE_ENV + "=1 demands the SDK's tests");
    }
    System.err.println("\n**********************************************************************");
    System.err.println("* SKIPPING the browser SDK's unit tests: " + reason);
    System.err.println("**********************************************************************\n");
    Assumptions.abort("SDK unit tests skipped: " + reason);
    return null;
  }
}
