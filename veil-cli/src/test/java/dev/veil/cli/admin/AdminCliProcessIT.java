package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil admin} in a JVM of its own, its stdout and stderr read whole: what a user sees,
 * including what libraries print past picocli's writers (gRPC logs through {@code
 * java.util.logging}, whose console handler writes to the process's stderr).
 */
class AdminCliProcessIT {
  @TempDir Path dir;

  @Test
  void unknownHost_printsOnlyTheCannotConnectLine() throws Exception {
    // .invalid never resolves (RFC 6761); gRPC's name resolver logs the failure at WARNING.
    Result run = veil("admin", "--host", "nonexistent.invalid", "--key", "k", "client", "list");

    assertThat(run.exitCode()).isEqualTo(3);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines().toList())
        .singleElement()
        .asString()
        .startsWith("veil admin: cannot connect to the admin server at nonexistent.invalid:9090: ");
  }

  private record Result(int exitCode, String out, String err) {}

  private Result veil(String... args) throws IOException, InterruptedException {
    List<String> command = ServerProcess.cliCommand(List.of(), List.of(args));
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile()) // no data/admin.key here
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("veil admin did not finish within 120 s");
    }
    return new Result(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
