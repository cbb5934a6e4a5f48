package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.veil.testing.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil map} on a full disk: the message names the file (the JDK's says only {@code No space
 * left on device}) and, since what is on disk stands, says where the progress is kept. The full
 * disk is Linux's {@code /dev/full}, behind the output's temporary file.
 */
class MapDiskFullTest {
  @TempDir Path dir;

  @Test
  void aFullDisk_isNamedByItsFile_andTheProgressIsKept() throws IOException {
    Path full = Path.of("/dev/full");
    assumeTrue(Files.isWritable(full), "no /dev/full here");
    Path in = Files.writeString(dir.resolve("in.txt"), "a@example.com\n");
    Path out = dir.resolve("out.csv");
    Files.createSymbolicLink(MapFiles.temporaryFile(out), full);

    // The rows' file fails at its header, before any answer (port 1 answers nothing).
    CliRun run =
        CliRun.of(
            "map",
            "--in",
            in.toString(),
            "--out",
            out.toString(),
            "--progress",
            "none",
            "--url",
            "http://127.0.0.1:1",
            "--api-key",
            "vk1.AAAAAAAAAAAA.secret");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
    assertThat(run.err())
        .contains("No space left on device: " + MapFiles.temporaryFile(out))
        .contains(
            "progress is kept in " + out + ".veil-cache; run the same command again to resume")
        .doesNotContain("Exception");
  }
}
