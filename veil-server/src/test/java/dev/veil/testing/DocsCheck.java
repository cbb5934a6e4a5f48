package dev.veil.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The checkers of Veil's published documents, installed by {@code npm ci --prefix tools/docs-check}
 * (versions pinned by its {@code package-lock.json}): {@code redocly lint} for the OpenAPI
 * document, with the rules of {@code tools/docs-check/redocly.yaml}, and {@code tsc} for the
 * README's TypeScript.
 *
 * <p>Without them, {@link #locate()} skips the calling test after a loud notice on stderr, or fails
 * it when env {@value BufCurl#REQUIRE_ENV} is {@code 1} (CI sets it), as {@link BufCurl} does.
 */
public final class DocsCheck {
  private static final String DIR = "tools/docs-check";
  private static final long TIMEOUT_SECONDS = 120;
  private static volatile boolean bannerShown;

  private final Path root;

  private DocsCheck(Path root) {
    this.root = root;
  }

  /** What one run printed (stdout and stderr together) and how it ended. */
  public record Result(int exitCode, String output) {}

  /** The tools under {@code tools/docs-check}, or a skipped (or, with the env set, failed) test. */
  public static DocsCheck locate() {
    Path root = projectRoot();
    for (String tool : List.of("redocly", "tsc")) {
      Path executable = bin(root, tool);
      if (!Files.isExecutable(executable)) {
        skip(
            DIR
                + " is not installed (no "
                + executable
                + "); install it with: npm ci --prefix "
                + DIR);
      }
    }
    return new DocsCheck(root);
  }

  /** The repository root: the nearest directory upwards holding {@code tools/docs-check}. */
  public static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve(DIR).resolve("package.json"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "no " + DIR + "/package.json above " + Path.of("").toAbsolutePath());
  }

  /** {@code redocly lint} of {@code document} with the project's rules, one line per finding. */
  public Result lintOpenApi(Path document) {
    return run(
        root,
        List.of(
            bin(root, "redocly").toString(),
            "lint",
            "--config",
            root.resolve(DIR).resolve("redocly.yaml").toString(),
            "--format",
            "stylish",
            document.toString()));
  }

  /** {@code tsc} with {@code arguments}, run in {@code directory}. */
  public Result tsc(Path directory, List<String> arguments) {
    List<String> command = new ArrayList<>(List.of(bin(root, "tsc").toString()));
    command.addAll(arguments);
    return run(directory, command);
  }

  /** A file of {@code tools/docs-check}, e.g. {@code readme-page.d.ts}. */
  public Path file(String name) {
    return root.resolve(DIR).resolve(name);
  }

  private static Path bin(Path root, String tool) {
    return root.resolve(DIR).resolve("node_modules/.bin").resolve(tool);
  }

  private static void skip(String reason) {
    if ("1".equals(System.getenv(BufCurl.REQUIRE_ENV))) {
      fail(reason + " (" + BufCurl.REQUIRE_ENV + "=1 demands it)");
    }
    if (!bannerShown) {
      bannerShown = true;
      System.err.println(
          "\n**********************************************************************");
      System.err.println("* SKIPPING document checks (redocly, tsc): " + reason);
      System.err.println("* Set " + BufCurl.REQUIRE_ENV + "=1 to fail instead.");
      System.err.println(
          "**********************************************************************\n");
    }
    Assumptions.abort("document checks skipped: " + reason);
  }

  private static Result run(Path directory, List<String> command) {
    try {
      Path output = Files.createTempFile("veil-docs-check-", ".txt");
      try {
        ProcessBuilder builder =
            new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        // No calls home, no colour codes in assertion messages.
        builder.environment().put("REDOCLY_TELEMETRY", "off");
        builder.environment().put("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
        builder.environment().put("NO_COLOR", "1");
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new AssertionError(command + " did not finish within " + TIMEOUT_SECONDS + " s");
        }
        return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
