package dev.veil.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.veil.testing.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil map} and {@code veil decrypt} without an API key (no {@code --api-key}, no {@code
 * VEIL_API_KEY}): a usage error that says how to give one, before any file is made or request sent;
 * the server's 401 would name an HTTP header instead. A bad URL or key is named by its option, not
 * by the client library's builder method. The help lists every exit code.
 */
class ClientCommandUsageTest {
  @TempDir Path dir;

  @BeforeEach
  void noKeyInTheEnvironment() {
    String key = System.getenv("VEIL_API_KEY");
    assumeTrue(key == null || key.isBlank(), "VEIL_API_KEY is set in this environment");
  }

  @Test
  void map_withoutAKey_isAUsageError_andLeavesNoFile() throws IOException {
    Path in = Files.writeString(dir.resolve("in.txt"), "a@example.com\n");

    // Port 1: were a request sent, the run would end with 3 (cannot reach), not 2.
    CliRun run =
        CliRun.of(
            "map",
            "--in",
            in.toString(),
            "--out",
            dir.resolve("out.csv").toString(),
            "--url",
            "http://127.0.0.1:1");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .contains(
            "no API key: give --api-key KEY or set VEIL_API_KEY (a key with the MAPPER role)");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(in);
    }
  }

  @Test
  void aBadUrlOrKey_isSaidInTheCommandsOwnTerms() throws IOException {
    Path in = Files.writeString(dir.resolve("in.txt"), "a@example.com\n");

    CliRun badUrl =
        CliRun.of(
            "map",
            "--in",
            in.toString(),
            "--out",
            dir.resolve("out.csv").toString(),
            "--url",
            "ftp://127.0.0.1:1",
            "--api-key",
            "k");
    CliRun badKey = CliRun.of("decrypt", "AAAA", "--url", "http://127.0.0.1:1", "--api-key", "a b");

    assertThat(badUrl.exitCode()).isEqualTo(2);
    assertThat(badUrl.err()).contains("veil map: --url must start with http:// or https://");
    assertThat(badKey.exitCode()).isEqualTo(2);
    assertThat(badKey.err())
        .contains("veil decrypt: --api-key must be printable ASCII without spaces");
  }

  @Test
  void mapHelp_listsEveryExitCode_thoseOfAStoppedRunIncluded() {
    CliRun help = CliRun.of("map", "--help");

    assertThat(help.exitCode()).isZero();
    assertThat(help.out())
        .contains("Exit codes:")
        .contains("cannot reach the server")
        .contains("130   stopped by Ctrl-C (143: by SIGTERM); run the same command again to");
  }

  @Test
  void decrypt_withoutAKey_isAUsageError() {
    CliRun run = CliRun.of("decrypt", "AAAA", "--url", "http://127.0.0.1:1");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err())
        .contains(
            "no API key: give --api-key KEY or set VEIL_API_KEY (a key with the ID_READER role)");
  }
}
