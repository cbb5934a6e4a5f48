package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.sdk.MappingCache;
import dev.veil.sdk.VeilClient;
import dev.veil.testing.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code veil map} runs on one output are refused whatever their {@code --cache}, and two on
 * one cache whatever their {@code --out}: the first run is stood for by the lock it holds (this JVM
 * holding it counts as another holder), and the second leaves the first's files alone. The server
 * is port 1, which answers nothing: a run that got past the locks ends with exit code 3.
 */
class MapOutputLockTest {
  private static final String FIRST_RUNS_ROWS = "identifier,advertising_id,bucket_id\n";

  @TempDir Path dir;
  private Path in;
  private Path out;

  @BeforeEach
  void files() throws IOException {
    in = Files.writeString(dir.resolve("in.txt"), "b@example.com\n");
    out = dir.resolve("out.csv");
    Files.writeString(out, FIRST_RUNS_ROWS);
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
  void aSecondRunOnTheOutput_withAnotherCache_isRefused_andLeavesTheFirstRunsFilesAlone()
      throws IOException {
    try (OutputLock first = OutputLock.take(MapFiles.of(out, dir.resolve("a.cache")))) {
      CliRun second = map("--cache", dir.resolve("b.cache").toString());
      CliRun third = map();

      for (CliRun run : new CliRun[] {second, third}) {
        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        assertThat(run.err())
            .contains("--out " + out + " is being written by another veil map")
            .doesNotContain("Exception");
      }
      assertThat(Files.readString(out)).isEqualTo(FIRST_RUNS_ROWS);
      assertThat(dir.resolve("b.cache")).doesNotExist();
    }
  }

  @Test
  void aSecondRunOnTheCache_withAnotherOutput_isRefused() throws IOException {
    Path cache = dir.resolve("shared.cache");
    VeilClient client =
        VeilClient.builder().baseUrl("http://127.0.0.1:1").apiKey("vk1.AAAAAAAAAAAA.s").build();
    try (MappingCache first = client.mappingCache(cache).build()) {
      CliRun second = map("--cache", cache.toString());

      assertThat(second.exitCode()).as(second.err()).isEqualTo(1);
      assertThat(second.err())
          .contains("mapping cache " + cache + " is open in another process")
          .doesNotContain("Exception");
      assertThat(first.size()).isZero();
    }
  }

  @Test
  void aRunWithACache_keepsItsProgressInTheCache() {
    Path cache = dir.resolve("b.cache");

    CliRun run = map("--cache", cache.toString());

    assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
    assertThat(run.err()).contains("progress is kept in " + cache);
    assertThat(MapFiles.defaultCache(out)).doesNotExist();
  }
}
