package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.veil.testing.BufCurl;
import dev.veil.testing.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the README's copy-paste session, the shell block after the marker {@value #MARKER}, against
 * a real {@code veil serve} whose data directory is {@code ./data} of the session's working
 * directory, as after the README's first command. Each {@code #> } comment line is what the command
 * before it prints on stdout; {@code …} stands for a value that varies. The only change to the
 * block is the ports: the server listens on free ports, so {@code 127.0.0.1:8080} becomes its HTTP
 * port and {@code ./veil admin} is given its gRPC port. {@code ./veil} runs the CLI of this build's
 * classes.
 *
 * <p>Needs bash, curl and jq; without them the test is skipped with its reason (or fails when
 * {@code VEIL_REQUIRE_TOOLS=1}, as in CI).
 */
class ReadmeSessionIT {
  static final String MARKER = "<!-- ReadmeSessionIT runs this block -->";
  private static final String EXPECTED = "#> ";

  /** One command (possibly several lines) and the lines it must print. */
  record Step(List<String> commands, List<String> expected) {}

  @Test
  void theReadmesSession_printsWhatTheReadmeShows(@TempDir Path dir) throws Exception {
    requireTools("bash", "curl", "jq");
    List<Step> steps = steps(readmeBlock());
    assertThat(steps)
        .as("steps with expected output in the README's session")
        .hasSizeGreaterThanOrEqualTo(8);

    Path dataDir = dir.resolve("data");
    try (ServerProcess server = ServerProcess.start(dataDir)) {
      Path veil = dir.resolve("veil");
      Files.writeString(
          veil,
          "#!/usr/bin/env bash\n"
              + "if [ \"$1\" = admin ]; then shift; set -- admin --port "
              + server.grpcPort()
              + " \"$@\"; fi\n"
              + "exec '"
              + Path.of(System.getProperty("java.home"), "bin", "java")
              + "' -cp '"
              + System.getProperty("java.class.path")
              + "' dev.veil.cli.Main \"$@\"\n");
      Files.setPosixFilePermissions(veil, PosixFilePermissions.fromString("rwx------"));

      StringBuilder script = new StringBuilder();
      for (int i = 0; i < steps.size(); i++) {
        script.append("{\n");
        for (String line : steps.get(i).commands()) {
          script
              .append(line.replace("127.0.0.1:8080", "127.0.0.1:" + server.httpPort()))
              .append('\n');
        }
        script.append("} > ").append(dir.resolve("out." + i)).append('\n');
      }
      Path session = dir.resolve("session.sh");
      Files.writeString(session, script);
      Process bash =
          new ProcessBuilder("bash", session.toString())
              .directory(dir.toFile())
              .redirectErrorStream(false)
              .redirectError(dir.resolve("session.err").toFile())
              .redirectOutput(dir.resolve("session.out").toFile())
              .start();
      if (!bash.waitFor(120, TimeUnit.SECONDS)) {
        bash.destroyForcibly();
        fail(
            "the README's session did not finish within 120 s; stderr:\n"
                + read(dir.resolve("session.err")));
      }

      for (int i = 0; i < steps.size(); i++) {
        Step step = steps.get(i);
        List<String> printed = read(dir.resolve("out." + i)).lines().toList();
        String context =
            "README step:\n  "
                + String.join("\n  ", step.commands())
                + "\nprinted:\n  "
                + String.join("\n  ", printed)
                + "\nsession stderr:\n"
                + read(dir.resolve("session.err"));
        assertThat(printed).as(context).hasSameSizeAs(step.expected());
        for (int line = 0; line < printed.size(); line++) {
          assertThat(printed.get(line)).as(context).matches(pattern(step.expected().get(line)));
        }
      }
    }
  }

  /** The shell block after the marker in README.md. */
  static List<String> readmeBlock() throws IOException {
    List<String> readme =
        Files.readAllLines(BufCurl.projectRoot().resolve("README.md"), StandardCharsets.UTF_8);
    int marker = readme.indexOf(MARKER);
    assertThat(marker).as("README.md has the marker %s", MARKER).isNotNegative();
    assertThat(readme.get(marker + 1))
        .as("a ```sh block right after the marker")
        .isEqualTo("```sh");
    List<String> block = new ArrayList<>();
    for (int i = marker + 2; !readme.get(i).equals("```"); i++) {
      block.add(readme.get(i));
    }
    return block;
  }

  /**
   * Commands and their expected lines, in order; lines after the last expected output are run too.
   */
  static List<Step> steps(List<String> block) {
    List<Step> steps = new ArrayList<>();
    List<String> commands = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (String line : block) {
      if (line.startsWith(EXPECTED)) {
        expected.add(line.substring(EXPECTED.length()));
        continue;
      }
      if (!expected.isEmpty()) {
        steps.add(new Step(commands, expected));
        commands = new ArrayList<>();
        expected = new ArrayList<>();
      }
      commands.add(line);
    }
    steps.add(new Step(commands, expected));
    return steps;
  }

  /** The expected line as a pattern: literal, but each {@code …} matches a value that varies. */
  static Pattern pattern(String expected) {
    StringBuilder regex = new StringBuilder();
    String[] parts = expected.split("…", -1);
    for (int i = 0; i < parts.length; i++) {
      regex.append(parts[i].isEmpty() ? "" : Pattern.quote(parts[i]));
      if (i < parts.length - 1) {
        regex.append("\\S.*?");
      }
    }
    return Pattern.compile(regex.toString());
  }

  private static void requireTools(String... tools) throws IOException, InterruptedException {
    List<String> missing = new ArrayList<>();
    for (String tool : tools) {
      Process which = new ProcessBuilder("bash", "-c", "command -v " + tool).start();
      if (which.waitFor() != 0) {
        missing.add(tool);
      }
    }
    if (!missing.isEmpty()) {
      String reason =
          "README session test skipped: "
              + String.join(", ", missing)
              + " not found on the PATH"
              + " (apt-get install "
              + String.join(" ", missing)
              + ")";
      if ("1".equals(System.getenv(BufCurl.REQUIRE_ENV))) {
        fail(reason + " (" + BufCurl.REQUIRE_ENV + "=1 demands it)");
      }
      System.err.println("\n*** " + reason + "\n");
      Assumptions.abort(reason);
    }
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }
}
