package dev.veil.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A Prebid.js bundle for a test page: Prebid's core, its user-id module and the UID2 user-id
 * submodule, built by esbuild from the npm packages that {@code npm ci --prefix tools/prebid}
 * installs (versions pinned by {@code tools/prebid/package-lock.json}; the build is {@code
 * tools/prebid/build.mjs}). Built once per run, into {@code target/prebid/}, in well under a
 * second.
 *
 * <p>{@link #build()} skips the calling test after a loud notice on stderr when Node is missing (or
 * fails it with {@value Browser#REQUIRE_ENV}=1, as for the browser SDK's unit tests) or when the
 * packages are not installed (or fails it with {@value BufCurl#REQUIRE_ENV}=1, as for the other npm
 * tools). {@code .ci/run} sets both and installs the packages.
 */
public final class PrebidBundle {
  private static final String DIR = "tools/prebid";
  private static final long TIMEOUT_SECONDS = 60;
  private static volatile boolean bannerShown;
  private static Path built;

  private PrebidBundle() {}

  /**
   * The bundle's path, building it on the first call; or a skipped (or, with the env set, failed)
   * test.
   */
  public static synchronized Path build() {
    if (built == null) {
      built = buildNow();
    }
    return built;
  }

  private static Path buildNow() {
    String node = findNode();
    Path root = projectRoot();
    for (String module : List.of("esbuild", "prebid.js")) {
      Path installed = root.resolve(DIR).resolve("node_modules").resolve(module);
      if (!Files.isRegularFile(installed.resolve("package.json"))) {
        skip(
            BufCurl.REQUIRE_ENV,
            DIR
                + " is not installed (no "
                + installed
                + "); install it with: npm ci --prefix "
                + DIR);
      }
    }
    Path out = Path.of("target", "prebid", "prebid-uid2.js").toAbsolutePath();
    List<String> command =
        List.of(node, root.resolve(DIR).resolve("build.mjs").toString(), out.toString());
    try {
      Path log = Files.createTempFile("veil-prebid-build-", ".txt");
      try {
        Process process =
            new ProcessBuilder(command)
                .directory(root.resolve(DIR).toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new AssertionError(command + " did not finish within " + TIMEOUT_SECONDS + " s");
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        if (process.exitValue() != 0 || !Files.isRegularFile(out)) {
          throw new AssertionError(
              command + " failed (exit " + process.exitValue() + "):\n" + output);
        }
        System.out.print(output); // "built … in N ms"
        return out;
      } finally {
        Files.deleteIfExists(log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static String findNode() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path candidate = Path.of(dir, "node");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    skip(Browser.REQUIRE_ENV, "node is not on the PATH (install the Debian package nodejs)");
    return null;
  }

  /** The repository root: the nearest directory upwards holding {@code tools/prebid}. */
  private static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve(DIR).resolve("package.json"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "no " + DIR + "/package.json above " + Path.of("").toAbsolutePath());
  }

  private static void skip(String requireEnv, String reason) {
    if ("1".equals(System.getenv(requireEnv))) {
      fail(reason + " (" + requireEnv + "=1 demands the Prebid.js test)");
    }
    if (!bannerShown) {
      bannerShown = true;
      System.err.println(
          "\n**********************************************************************");
      System.err.println("* SKIPPING the Prebid.js test: " + reason);
      System.err.println("* Set " + requireEnv + "=1 to fail instead (.ci/run does).");
      System.err.println(
          "**********************************************************************\n");
    }
    Assumptions.abort("Prebid.js test skipped: " + reason);
  }
}
