package dev.veil.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.KillMoments;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process using {@link dev.veil.sdk.MappingCache} ({@link CacheImportMain}) killed with SIGKILL
 * at random moments of its import, then run again to the end: its CSV equals, byte for byte, that
 * of a run never interrupted, on v1 and on v3. The random moments are drawn from a seed that the
 * failure message names.
 */
class MappingCacheCrashIT {
  private static final int EMAILS = 20_000;

  @TempDir Path dir;
  private TestNode node;
  private CreatedClient mapper;

  @BeforeEach
  void start() throws IOException {
    node = TestNode.start();
    node.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS)); // envelopes carry real time
    mapper = node.newClient(Role.MAPPER);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < EMAILS; i++) {
      lines.add("person" + i + (i % 7 == 0 ? "@Example.COM" : "@example.com"));
    }
    lines.add("not an email");
    lines.add("person5@example.com"); // a duplicate
    Files.write(dir.resolve("emails.txt"), lines, StandardCharsets.UTF_8);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private Process launch(String secret, String cache, String out) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        List.of(
            java,
            "-Xmx256m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            CacheImportMain.class.getName(),
            "http://127.0.0.1:" + node.port(),
            mapper.key().reveal(),
            secret,
            dir.resolve("emails.txt").toString(),
            dir.resolve(cache).toString(),
            dir.resolve(out).toString());
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(out + ".log").toFile())
        .start();
  }

  private void runToTheEnd(String secret, String cache, String out) throws Exception {
    Process p = launch(secret, cache, out);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the run ends").isTrue();
    assertThat(p.exitValue()).as(() -> readLog(out)).isZero();
  }

  private String readLog(String out) {
    try {
      return Files.readString(dir.resolve(out + ".log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"v1", "v3"})
  void killedAtRandomMoments_thenRunAgain_writesTheSameBytesAsAnUninterruptedRun(String version)
      throws Exception {
    String secret = version.equals("v3") ? mapper.client().secret().reveal() : "-";
    long started = System.nanoTime();
    runToTheEnd(secret, "reference.cache", "reference.csv");
    long runMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    byte[] reference = Files.readAllBytes(dir.resolve("reference.csv"));
    assertThat(new String(reference, StandardCharsets.UTF_8).lines().count())
        .as("header, and one row per distinct valid identifier")
        .isEqualTo(1 + EMAILS);

    KillMoments moments = new KillMoments(runMillis);
    long seed = moments.seed();
    int kills = 0; // since the crashed files were last started afresh
    for (int attempt = 1; attempt <= 5 || kills == 0; attempt++) {
      assertThat(attempt).as("attempts to kill a run (seed %d)", seed).isLessThanOrEqualTo(30);
      Process p = launch(secret, "crashed.cache", "crashed.csv");
      if (moments.killAtRandomMoment(p)) {
        kills++;
      } else {
        // It ended by itself: its files are complete. Start afresh, so the run checked below
        // resumes from a crash.
        KillMoments.deleteFilesStartingWith(dir, "crashed.");
        kills = 0;
      }
    }
    runToTheEnd(secret, "crashed.cache", "crashed.csv");
    assertThat(Files.readAllBytes(dir.resolve("crashed.csv")))
        .as("output after %d SIGKILLs (seed %d)", kills, seed)
        .isEqualTo(reference);
  }
}
