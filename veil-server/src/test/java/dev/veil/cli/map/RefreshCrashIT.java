package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.sdk.VeilClient;
import dev.veil.testing.AdminCli;
import dev.veil.testing.Await;
import dev.veil.testing.CliRun;
import dev.veil.testing.Http;
import dev.veil.testing.ServerProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A {@code veil map --refresh} that stops at each point of its write, as a SIGKILL there would
 * leave it (every write before that point forced, nothing after it done), then the next run: the
 * output ends with every row that stays and the rejected file with each opted-out identifier once,
 * whichever command runs next.
 */
class RefreshCrashIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static ServerProcess server;
  private static Http http;
  private static String adminKey;
  private static String mapperKey;
  private static String optOutKey;

  /** What a crash at a {@link OutputRefresh.Step} looks like to the refresh: it stops there. */
  private static final class Stopped extends IOException {
    Stopped(OutputRefresh.Step step) {
      super("stopped at " + step);
    }
  }

  /** The command run after the stopped refresh. */
  enum Next { REFRESH, IMPORT }

  @BeforeAll
  static void start() throws Exception {
    Path data = dir.resolve("data");
    server = ServerProcess.start(data, "--set", "salt.buckets=256");
    http = new Http(server.baseUrl());
    adminKey = Files.readString(data.resolve("admin.key")).strip();
    mapperKey = AdminCli.createClient(server.grpcPort(), adminKey, "collector", "MAPPER");
    optOutKey = AdminCli.createClient(server.grpcPort(), adminKey, "optout-intake", "OPTOUT");
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static CliRun map(String... args) {
    List<String> all = new ArrayList<>(List.of("map"));
    all.addAll(List.of(args));
    all.addAll(List.of("--progress", "lines", "--url", server.baseUrl(), "--api-key", mapperKey));
    return CliRun.of(all.toArray(String[]::new));
  }

  /** An output of three rows whose second identifier has since opted out and had its bucket rotated. */
  private record Case(Path in, Path out, String stays, String leaves, String alsoStays) {
    Path rejected() {
      return Path.of(out + ".rejected.csv");
    }

    Path state() {
      return Path.of(out + ".veil-state");
    }
  }

  private static Case mappedThenOptedOut(String name) throws Exception {
    Case c = new Case(dir.resolve(name + ".txt"), dir.resolve(name + ".csv"), "stays-" + name + "@example.com",
        "leaves-" + name + "@example.com", "also-stays-" + name + "@example.com");
    Files.writeString(c.in(), c.stays() + "\n" + c.leaves() + "\n" + c.alsoStays() + "\n");
    CliRun mapped = map("--in", c.in().toString(), "--out", c.out().toString());
    assertThat(mapped.exitCode()).as(mapped.err()).isZero();
    String bucket = Files.readAllLines(c.out()).stream().filter(l -> l.startsWith(c.leaves() + ","))
        .findFirst().orElseThrow().split(",")[2];
    assertThat(http.post("/v1/optout", optOutKey, "{\"email\":\"" + c.leaves() + "\"}").code()).isEqualTo(200);
    Instant beforeRotation = Instant.now().minusSeconds(1);
    assertThat(AdminCli.run(server.grpcPort(), adminKey, "salts", "rotate", "--bucket", bucket).exitCode()).isZero();
    JsonNode buckets = JSON.readTree(http.get("/v1/identity/buckets?since_timestamp="
        + beforeRotation.getEpochSecond(), mapperKey).body()).path("body");
    Instant effective = LocalDateTime.parse(buckets.get(0).get("last_updated").asText()).toInstant(ZoneOffset.UTC);
    Await.until(Duration.ofSeconds(5), "the rotation to take effect", () -> Instant.now().isAfter(effective));
    return c;
  }

  /** Runs the refresh of {@code c}'s output in-process and stops it at {@code step}. */
  private static void refreshStoppedAt(Case c, OutputRefresh.Step step) throws Exception {
    VeilClient client = VeilClient.builder().baseUrl(server.baseUrl()).apiKey(mapperKey).build();
    OutputRefresh refresh = new OutputRefresh(MapRun.caller(server.baseUrl(), mapperKey), client.mapper(), false,
        VeilClient.MAX_BATCH_SIZE, VeilClient.MAX_BATCH_BYTES,
        new ProgressDisplay(new PrintWriter(Writer.nullWriter()), ProgressDisplay.Mode.NONE), reached -> {
          if (reached == step) {
            throw new Stopped(step);
          }
        });
    try (MapState state = MapState.open(c.state()); OutputFiles files = new OutputFiles(c.out())) {
      assertThatThrownBy(() -> refresh.run(state, files, null)).isInstanceOf(Stopped.class);
    }
  }

  private static List<String> identifiers(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).isEqualTo("identifier,advertising_id,bucket_id");
    return lines.subList(1, lines.size()).stream().map(l -> l.split(",")[0]).toList();
  }

  private static boolean temporaryFilesLeft(Case c) {
    return Files.exists(OutputFiles.temporaryFile(c.out())) || Files.exists(OutputFiles.temporaryFile(c.rejected()));
  }

  /** The end every case must reach: two rows, the leaver rejected once, the state agreeing, nothing left over. */
  private static void assertRefreshedOnce(Case c) throws IOException {
    CliRun again = map("--refresh", "--out", c.out().toString());
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.err()).contains("re-mapped 0 in").contains("wrote 2 rows").contains("and 1 rejected identifiers");
    assertThat(identifiers(c.out())).containsExactly(c.stays(), c.alsoStays());
    assertThat(Files.readAllLines(c.rejected())).containsExactly("identifier,reason", c.leaves() + ",optout");
    assertThat(temporaryFilesLeft(c)).as("temporary files left beside " + c.out()).isFalse();
  }

  @ParameterizedTest(name = "stopped at {0}, then veil map --refresh")
  @EnumSource(OutputRefresh.Step.class)
  void aRefreshStoppedAnywhere_thenRefreshAgain_losesNoRow_andRejectsOnce(OutputRefresh.Step step) throws Exception {
    Case c = mappedThenOptedOut("refresh-" + step.name().toLowerCase());
    refreshStoppedAt(c, step);

    if (step == OutputRefresh.Step.RENAMED) {
      assertThat(identifiers(c.out())).containsExactly(c.stays(), c.alsoStays());
    } else {
      assertThat(identifiers(c.out())).containsExactly(c.stays(), c.leaves(), c.alsoStays());
      assertThat(temporaryFilesLeft(c)).isTrue();
    }
    CliRun next = map("--refresh", "--out", c.out().toString());

    assertThat(next.exitCode()).as(next.err()).isZero();
    // Before the commit the refresh is done again; after it, the next run finds nothing rotated since.
    assertThat(next.err()).contains(step == OutputRefresh.Step.WRITTEN ? "removed 1 opted out" : "removed 0 opted out");
    assertRefreshedOnce(c);
  }

  @ParameterizedTest(name = "stopped at {0}, then the import's command")
  @EnumSource(OutputRefresh.Step.class)
  void aRefreshStoppedAnywhere_thenTheImportsCommand_installsOnlyACommittedRefresh(OutputRefresh.Step step)
      throws Exception {
    Case c = mappedThenOptedOut("import-" + step.name().toLowerCase());
    refreshStoppedAt(c, step);

    CliRun next = map("--in", c.in().toString(), "--out", c.out().toString());

    assertThat(next.exitCode()).as(next.err()).isZero();
    assertThat(next.err()).contains("is complete for");
    assertThat(temporaryFilesLeft(c)).isFalse();
    if (step == OutputRefresh.Step.WRITTEN) { // never committed: the output is the import's, untouched
      assertThat(identifiers(c.out())).containsExactly(c.stays(), c.leaves(), c.alsoStays());
      assertThat(c.rejected()).doesNotExist();
    } else {
      assertThat(identifiers(c.out())).containsExactly(c.stays(), c.alsoStays());
      assertThat(Files.readAllLines(c.rejected())).containsExactly("identifier,reason", c.leaves() + ",optout");
    }
    assertRefreshedOnce(c);
  }

  @Test
  void aRefreshStoppedBetweenItsTwoRenames_isFinishedByTheNextRun() throws Exception {
    Case c = mappedThenOptedOut("between-renames");
    refreshStoppedAt(c, OutputRefresh.Step.COMMITTED);
    // The renames go rejected file first, then the output: stopped after the first of them.
    Files.move(OutputFiles.temporaryFile(c.rejected()), c.rejected(), StandardCopyOption.ATOMIC_MOVE);

    CliRun next = map("--refresh", "--out", c.out().toString());

    assertThat(next.exitCode()).as(next.err()).isZero();
    assertRefreshedOnce(c);
  }
}
