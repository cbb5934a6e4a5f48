package dev.veil.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.veil.testing.CliRun;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil serve} that cannot start says what stops it, naming the setting, with exit code 1.
 */
class ServeStartFailuresTest {
  @TempDir Path dir;

  @Test
  void aPublicPortInUse_isNamedWithItsSettings() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CliRun run =
          CliRun.of(
              "serve",
              "--data-dir",
              dir.resolve("data").toString(),
              "--port",
              Integer.toString(taken.getLocalPort()),
              "--grpc-port",
              "0");

      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.err())
          .contains(
              "veil: cannot start: cannot bind the public HTTP port 127.0.0.1:"
                  + taken.getLocalPort()
                  + " (http.host, http.port)");
    }
  }

  @Test
  void aDataDirThatIsAFile_isSaidSo() throws Exception {
    Path file = Files.writeString(dir.resolve("not-a-dir"), "x");

    CliRun run =
        CliRun.of("serve", "--data-dir", file.toString(), "--port", "0", "--grpc-port", "0");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains(file + " is a file, not a directory")
        .doesNotContain("Exception");
  }

  /**
   * A read-only data directory: {@code /proc/sys/kernel}, which is read-only even for root (tests
   * run as root, which a chmod would not stop).
   */
  @Test
  void aReadOnlyDataDir_isNamedWithItsSetting() {
    Path readOnly = Path.of("/proc/sys/kernel");
    assumeTrue(
        Files.isDirectory(readOnly) && !Files.isWritable(readOnly),
        "no read-only directory at " + readOnly);

    CliRun run =
        CliRun.of("serve", "--data-dir", readOnly.toString(), "--port", "0", "--grpc-port", "0");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains("the directory " + readOnly + " is not writable")
        .contains("data.dir (--data-dir)")
        .doesNotContain("unable to open database file")
        .doesNotContain("Exception");
  }

  /** A read-only store file ({@code /proc/sys/kernel/ostype}: read-only even for root). */
  @Test
  void aReadOnlyStoreFile_isNamedWithItsSetting() {
    Path readOnly = Path.of("/proc/sys/kernel/ostype");
    assumeTrue(
        Files.isRegularFile(readOnly) && !Files.isWritable(readOnly),
        "no read-only file at " + readOnly);

    CliRun run =
        CliRun.of(
            "serve",
            "--data-dir",
            dir.resolve("data").toString(),
            "--db",
            "sqlite:" + readOnly,
            "--port",
            "0",
            "--grpc-port",
            "0");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains("the store file " + readOnly + " is not writable")
        .contains("db (--db)")
        .doesNotContain("Exception");
  }

  @Test
  void aSettingGivenBothByAShortcutAndBySet_isRefused_notOneOfThemIgnored() {
    CliRun run =
        CliRun.of(
            "serve",
            "--data-dir",
            dir.resolve("data").toString(),
            "--set",
            "http.port=abc",
            "--port",
            "0",
            "--grpc-port",
            "0");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("http.port is given twice: by --port and by --set http.port");
  }

  @Test
  void aGrpcPortInUse_saysWhy() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CliRun run =
          CliRun.of(
              "serve",
              "--data-dir",
              dir.resolve("data").toString(),
              "--port",
              "0",
              "--grpc-port",
              Integer.toString(taken.getLocalPort()));

      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.err())
          .contains(
              "cannot bind the admin gRPC port 127.0.0.1:"
                  + taken.getLocalPort()
                  + " (grpc.host, grpc.port): Address already in use");
    }
  }
}
