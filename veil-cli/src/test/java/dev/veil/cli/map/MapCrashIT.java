package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.KillMoments;
import dev.veil.testing.ServerProcess;
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
 * A real {@code veil map} process killed with SIGKILL at random moments of its import, then the
 * same command run to the end: its output and its rejected file equal, byte for byte, those of a
 * run never interrupted, on v1 and on v3 (with the client's secret). The random moments are drawn
 * from a seed that the failure message names.
 */
class MapCrashIT {
  private static final int EMAILS = 30_000;

  @TempDir Path dir;
  private TestNode node;
  private CreatedClient mapper;
  private Path input;

  @BeforeEach
  void start() throws IOException {
    node = TestNode.start();
    node.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS)); // envelopes carry real time
    mapper = node.newClient(Role.MAPPER);
    List<String> lines = new ArrayList<>();
    lines.add("email");
    for (int i = 0; i < EMAILS; i++) {
      lines.add("person" + i + (i % 7 == 0 ? "@Example.COM" : "@example.com"));
      if (i % 5_000 == 17) {
        lines.add("not an email " + i); // rejected, in the rejected file
        lines.add("person" + (i / 2) + "@example.com"); // a repeat: one row
      }
    }
    input = Files.write(dir.resolve("emails.csv"), lines, StandardCharsets.UTF_8);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private Process launch(String secret, String out) throws IOException {
    List<String> command =
        ServerProcess.cliCommand(
            List.of("-XX:TieredStopAtLevel=1"),
            List.of(
                "map",
                "--in",
                input.toString(),
                "--out",
                dir.resolve(out).toString(),
                "--url",
                "http://127.0.0.1:" + node.port(),
                "--batch-size",
                "200", // many requests: most of a run is mapping, where kills land
                "--progress",
                "lines"));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(out + ".log").toFile()));
    pb.environment().put("VEIL_API_KEY", mapper.key().reveal());
    pb.environment().remove("VEIL_CLIENT_SECRET");
    if (secret != null) {
      pb.environment().put("VEIL_CLIENT_SECRET", secret);
    }
    return pb.start();
  }

  private void runToTheEnd(String secret, String out) throws Exception {
    Process p = launch(secret, out);
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
  void killedAtRandomMoments_thenTheSameCommand_writesTheSameBytesAsAnUninterruptedRun(
      String version) throws Exception {
    String secret = version.equals("v3") ? mapper.client().secret().reveal() : null;
    long started = System.nanoTime();
    runToTheEnd(secret, "reference.csv");
    long runMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    byte[] reference = Files.readAllBytes(dir.resolve("reference.csv"));
    byte[] referenceRejected = Files.readAllBytes(dir.resolve("reference.csv.rejected.csv"));
    assertThat(new String(reference, StandardCharsets.UTF_8).lines().count())
        .as("header, and one row per distinct valid identifier")
        .isEqualTo(1 + EMAILS);
    assertThat(new String(referenceRejected, StandardCharsets.UTF_8).lines())
        .hasSize(1 + 6)
        .allMatch(l -> l.equals("identifier,reason") || l.endsWith(",invalid identifier"));

    KillMoments moments = new KillMoments(runMillis);
    long seed = moments.seed();
    int kills = 0; // since the crashed files were last started afresh
    int midRun = 0; // of those, kills after the run had stored something in its cache
    for (int attempt = 1; attempt <= 6 || kills == 0; attempt++) {
      assertThat(attempt).as("attempts to kill a run (seed %d)", seed).isLessThanOrEqualTo(30);
      Process p = launch(secret, "crashed.csv");
      if (moments.killAtRandomMoment(p)) {
        kills++;
        Path cache = dir.resolve("crashed.csv.veil-cache");
        midRun += Files.exists(cache) && Files.size(cache) > 8 ? 1 : 0;
      } else {
        // It ended by itself: its files are complete. Start afresh, so the run checked below
        // resumes from a crash.
        KillMoments.deleteFilesStartingWith(dir, "crashed.");
        kills = 0;
        midRun = 0;
      }
    }
    System.out.printf("%s: %d SIGKILLs, %d mid-run (seed %d)%n", version, kills, midRun, seed);
    runToTheEnd(secret, "crashed.csv");
    assertThat(Files.readAllBytes(dir.resolve("crashed.csv")))
        .as("output after %d SIGKILLs, %d mid-run (seed %d)", kills, midRun, seed)
        .isEqualTo(reference);
    assertThat(Files.readAllBytes(dir.resolve("crashed.csv.rejected.csv")))
        .as("rejected file after %d SIGKILLs, %d mid-run (seed %d)", kills, midRun, seed)
        .isEqualTo(referenceRejected);
  }
}
