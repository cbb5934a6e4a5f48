package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.CliRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state file of the release before the mapping cache ({@code <out>.veil-state}, or one named by
 * {@code --cache}) is refused with what to run, and left as it is, before any request (the server
 * is port 1, which answers nothing).
 */
class MapPreviousReleaseTest {
  private static final byte[] OLD_STATE =
      "veil map state 1\n\0\0\0\1".getBytes(StandardCharsets.ISO_8859_1);

  @TempDir Path dir;

  private CliRun map(Path in, Path out, String... more) {
    String[] base = {
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
      "vk1.AAAAAAAAAAAA.secret"
    };
    String[] args = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, args, base.length, more.length);
    return CliRun.of(args);
  }

  @Test
  void anOldStateFile_isRefused_withWhatToRun_andLeftAsItIs() throws IOException {
    Path in = Files.writeString(dir.resolve("in.txt"), "a@example.com\n");
    Path out = dir.resolve("out.csv");
    Path state = Files.write(Path.of(out + ".veil-state"), OLD_STATE);
    Path otherOut = dir.resolve("other.csv");
    Path namedState = Files.write(dir.resolve("named.state"), OLD_STATE);

    CliRun beside = map(in, out);
    CliRun named = map(in, otherOut, "--cache", namedState.toString());

    assertThat(beside.exitCode()).as(beside.err()).isEqualTo(1);
    assertThat(beside.err())
        .contains(state + " holds the progress of an earlier release of veil map")
        .contains("remove it and map the input again (veil map --in FILE --out " + out + ")")
        .doesNotContain("Exception");
    assertThat(named.exitCode()).as(named.err()).isEqualTo(1);
    assertThat(named.err()).contains(namedState + " holds the progress of an earlier release");
    assertThat(Files.readAllBytes(state)).isEqualTo(OLD_STATE);
    assertThat(Files.readAllBytes(namedState)).isEqualTo(OLD_STATE);
    assertThat(MapFiles.defaultCache(out)).doesNotExist();
    assertThat(out).doesNotExist();
  }
}
