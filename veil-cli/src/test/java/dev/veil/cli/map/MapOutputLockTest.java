package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.testing.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code veil map} runs on one output are refused whatever their {@code --cache}: the first run
 * is stood for by the lock it holds (this JVM holding it counts as another holder), and the second
 * must leave the first's temporary file alone. The server is port 1, which answers nothing: a run
 * that got past the lock would end with exit code 3 (unreachable).
 */
class MapOutputLockTest {
  private static final String FIRST_RUNS_ROWS = OutputFiles.HEADER + "a@example.com,AAAA,b1\n";

  @TempDir Path dir;
  private Path in;
  private Path out;

  @BeforeEach
  void files() throws IOException {
    in = Files.writeString(dir.resolve("in.txt"), "b@example.com\n");
    out = dir.resolve("out.csv");
    Files.writeString(OutputFiles.temporaryFile(out), FIRST_RUNS_ROWS);
  }

  private CliRun map(String... more) {
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
  void aSecondRunWithAnotherCache_isRefused_andLeavesTheFirstRunsFilesAlone() throws IOException {
    try (OutputLock first = OutputLock.take(out, dir.resolve("a.state"))) {
      CliRun second = map("--cache", dir.resolve("b.state").toString());

      assertThat(second.exitCode()).as(second.err()).isEqualTo(1);
      assertThat(second.err())
          .contains("--out " + out + " is being written by another veil map")
          .doesNotContain("Exception");
      assertThat(Files.readString(OutputFiles.temporaryFile(out))).isEqualTo(FIRST_RUNS_ROWS);
    }
  }

  @Test
  void aRunWithACache_isRefusedWhileARunWithoutOneHasTheOutput() throws IOException {
    try (MapState first = MapState.open(OutputLock.file(out))) {
      CliRun second = map("--cache", dir.resolve("b.state").toString());

      assertThat(second.exitCode()).as(second.err()).isEqualTo(1);
      assertThat(second.err()).contains("is being written by another veil map");
      assertThat(Files.readString(OutputFiles.temporaryFile(out))).isEqualTo(FIRST_RUNS_ROWS);
    }
  }

  @Test
  void aRunWithoutACache_isRefusedWhileARunWithOneHasTheOutput() throws IOException {
    try (OutputLock first = OutputLock.take(out, dir.resolve("a.state"))) {
      CliRun second = map();

      assertThat(second.exitCode()).as(second.err()).isEqualTo(1);
      assertThat(second.err()).contains(OutputLock.file(out) + " is in use by another veil map");
      assertThat(Files.readString(OutputFiles.temporaryFile(out))).isEqualTo(FIRST_RUNS_ROWS);
    }
  }

  @Test
  void aRunWithACache_leavesNoLockFileBehind_andKeepsItsStateInTheCache() {
    Path cache = dir.resolve("b.state");

    CliRun run = map("--cache", cache.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
    assertThat(OutputLock.file(out)).doesNotExist();
    assertThat(run.err()).contains("progress is kept in " + cache);
  }

  @Test
  void aCacheNamingTheDefaultStateFile_isOneLock_notTwo() throws IOException {
    assertThat(OutputLock.take(out, OutputLock.file(out))).isNull();

    CliRun run = map("--cache", OutputLock.file(out).toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
  }
}
