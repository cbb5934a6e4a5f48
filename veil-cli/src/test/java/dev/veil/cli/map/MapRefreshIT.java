package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.sdk.VeilClient;
import dev.veil.testing.AdminCli;
import dev.veil.testing.Await;
import dev.veil.testing.CliRun;
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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code veil map --refresh}'s pass over the output against a real server: read and written in
 * chunks, every row keeps its place; and a refresh that stops at each point of its write, as a
 * SIGKILL there would leave it (every write before that point forced, nothing after it done), then
 * the next run: the output ends with every row that stays and the rejected file with each opted-out
 * identifier once, whichever command runs next.
 */
class MapRefreshIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static MappingServer env;
  private static String optOutKey;

  /** What a crash at a {@link OutputRefresh.Step} looks like to the refresh: it stops there. */
  private static final class Stopped extends IOException {
    Stopped(OutputRefresh.Step step) {
      super("stopped at " + step);
    }
  }

  @BeforeAll
  static void start() throws Exception {
    env = MappingServer.start(dir);
    optOutKey =
        AdminCli.createClient(env.server.grpcPort(), env.adminKey, "optout-intake", "OPTOUT");
  }

  @AfterAll
  static void stop() throws Exception {
    env.server.close();
  }

  private static CliRun map(String... args) {
    List<String> all = new ArrayList<>(List.of("map"));
    all.addAll(List.of(args));
    all.addAll(
        List.of("--progress", "lines", "--url", env.server.baseUrl(), "--api-key", env.mapperKey));
    return CliRun.of(all.toArray(String[]::new));
  }

  /**
   * An output of three rows whose second identifier has since opted out and had its bucket rotated.
   */
  private record Case(Path in, Path out, String stays, String leaves, String alsoStays) {
    Path rejected() {
      return Path.of(out + ".rejected.csv");
    }

    Path state() {
      return Path.of(out + ".veil-state");
    }
  }

  private static Case mappedThenOptedOut(String name) throws Exception {
    Case c =
        new Case(
            dir.resolve(name + ".txt"),
            dir.resolve(name + ".csv"),
            "stays-" + name + "@example.com",
            "leaves-" + name + "@example.com",
            "also-stays-" + name + "@example.com");
    Files.writeString(c.in(), c.stays() + "\n" + c.leaves() + "\n" + c.alsoStays() + "\n");
    CliRun mapped = map("--in", c.in().toString(), "--out", c.out().toString());
    assertThat(mapped.exitCode()).as(mapped.err()).isZero();
    String bucket =
        Files.readAllLines(c.out()).stream()
            .filter(l -> l.startsWith(c.leaves() + ","))
            .findFirst()
            .orElseThrow()
            .split(",")[2];
    assertThat(env.http.post("/v1/optout", optOutKey, "{\"email\":\"" + c.leaves() + "\"}").code())
        .isEqualTo(200);
    Instant beforeRotation = Instant.now().minusSeconds(1);
    assertThat(
            AdminCli.run(env.server.grpcPort(), env.adminKey, "salts", "rotate", "--bucket", bucket)
                .exitCode())
        .isZero();
    JsonNode buckets =
        JSON.readTree(
                env.http
                    .get(
                        "/v1/identity/buckets?since_timestamp=" + beforeRotation.getEpochSecond(),
                        env.mapperKey)
                    .body())
            .path("body");
    Instant effective =
        LocalDateTime.parse(buckets.get(0).get("last_updated").asText()).toInstant(ZoneOffset.UTC);
    Await.until(
        Duration.ofSeconds(5),
        "the rotation to take effect",
        () -> Instant.now().isAfter(effective));
    return c;
  }

  /** Runs the refresh of {@code c}'s output in-process and stops it at {@code step}. */
  private static void refreshStoppedAt(Case c, OutputRefresh.Step step) throws Exception {
    VeilClient client =
        VeilClient.builder().baseUrl(env.server.baseUrl()).apiKey(env.mapperKey).build();
    OutputRefresh refresh =
        new OutputRefresh(
            MapRun.caller(env.server.baseUrl(), env.mapperKey),
            client.mapper(),
            false,
            VeilClient.MAX_BATCH_SIZE,
            VeilClient.MAX_BATCH_BYTES,
            noProgress(),
            reached -> {
              if (reached == step) {
                throw new Stopped(step);
              }
            },
            OutputRefresh.KEPT_BYTES);
    try (MapState state = MapState.open(c.state());
        OutputFiles files = new OutputFiles(c.out())) {
      assertThatThrownBy(() -> refresh.run(state, files, null)).isInstanceOf(Stopped.class);
    }
  }

  private static ProgressDisplay noProgress() {
    return new ProgressDisplay(new PrintWriter(Writer.nullWriter()), ProgressDisplay.Mode.NONE);
  }

  /** The output's rows in order: identifier, advertising id, bucket. */
  private static List<String[]> rows(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).isEqualTo("identifier,advertising_id,bucket_id");
    return lines.subList(1, lines.size()).stream()
        .map(l -> Csv.fields(l).toArray(String[]::new))
        .toList();
  }

  /**
   * The server's own answer for each identifier (emails and phones), by raw POST /v1/identity/map.
   */
  private static Map<String, String[]> serverMap(List<String> identifiers) {
    Map<String, String[]> answers = new HashMap<>();
    for (String kind : List.of("email", "phone")) {
      answers.putAll(
          env.http.identityMap(
              env.mapperKey,
              kind,
              identifiers.stream()
                  .filter(i -> i.startsWith("+") == kind.equals("phone"))
                  .toList()));
    }
    return answers;
  }

  @Test
  void anOutputChangedByHand_isRefusedWithAMessage_andLeftAsItIs() throws Exception {
    Case added = mappedThenOptedOut("added");
    List<String> lines = new ArrayList<>(Files.readAllLines(added.out()));
    String leavesRow =
        lines.stream().filter(l -> l.startsWith(added.leaves() + ",")).findFirst().orElseThrow();
    lines.add(
        leavesRow.replace(
            added.leaves(), "appended@example.com")); // a row past those veil map wrote
    Files.write(added.out(), lines);
    Case edited = mappedThenOptedOut("edited");
    List<String> editedLines = new ArrayList<>(Files.readAllLines(edited.out()));
    editedLines.replaceAll(
        l -> l.startsWith(edited.leaves() + ",") ? "garbage," + l.split(",")[2] : l);
    Files.write(edited.out(), editedLines);

    for (Case c : List.of(added, edited)) {
      String before = Files.readString(c.out());
      CliRun refresh = map("--refresh", "--out", c.out().toString());

      assertThat(refresh.exitCode()).as(refresh.err()).isEqualTo(1);
      assertThat(refresh.err())
          .contains(c.out() + " was changed since veil map wrote it")
          .contains("remove it and map the input into it again")
          .doesNotContain("Exception");
      assertThat(Files.readString(c.out())).isEqualTo(before);
      assertThat(Files.exists(c.rejected())).isFalse();
    }
  }

  @Test
  void chunksOfEveryKind_keepEveryRowInPlace_andRemapExactlyTheRotatedOnes() throws Exception {
    Path in = dir.resolve("chunks.csv");
    Path out = dir.resolve("chunks-mapped.csv");
    StringBuilder text = new StringBuilder("identifier\n");
    for (int i = 0; i < 120; i++) {
      // A phone every fourth line (each one ends a request of emails); non-ASCII emails, whose rows
      // are copied as bytes or decoded when stale; emails quoted in the CSV.
      String id =
          i % 4 == 3
              ? "+1555" + (1_000_000 + i)
              : i % 5 == 0
                  ? "ch\u00fcnk" + i + "@ex\u00e4mple.com"
                  : i % 7 == 0 ? "\"q," + i + "\"@example.com" : "chunk" + i + "@example.com";
      text.append(Csv.field(id)).append('\n');
    }
    Files.writeString(in, text);
    // An earlier test's rotation takes effect at the next whole second; a row mapped before then
    // may
    // already have its new salt, and its bucket would be listed with this rotation's time if both
    // fell in one second. Map only once every earlier rotation is in effect.
    Instant earlierRotationsDone = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    Await.until(
        Duration.ofSeconds(5),
        "earlier rotations to take effect",
        () -> Instant.now().isAfter(earlierRotationsDone));
    assertThat(map("--in", in.toString(), "--out", out.toString()).exitCode()).isZero();
    List<String[]> before = rows(out);
    Instant beforeRotation = Instant.now().minusSeconds(1);
    assertThat(
            AdminCli.run(
                    env.server.grpcPort(), env.adminKey, "salts", "rotate", "--fraction", "0.5")
                .exitCode())
        .isZero();
    JsonNode buckets =
        JSON.readTree(
                env.http
                    .get(
                        "/v1/identity/buckets?since_timestamp=" + beforeRotation.getEpochSecond(),
                        env.mapperKey)
                    .body())
            .path("body");
    // This rotation's buckets: the latest time of the list (another test's may be in it too).
    Instant effective = Instant.MIN;
    for (JsonNode b : buckets) {
      Instant at = LocalDateTime.parse(b.get("last_updated").asText()).toInstant(ZoneOffset.UTC);
      effective = at.isAfter(effective) ? at : effective;
    }
    Set<String> rotated = new HashSet<>();
    for (JsonNode b : buckets) {
      if (LocalDateTime.parse(b.get("last_updated").asText())
          .toInstant(ZoneOffset.UTC)
          .equals(effective)) {
        rotated.add(b.get("bucket_id").asText());
      }
    }
    Instant rotatedAt = effective;
    Await.until(
        Duration.ofSeconds(5),
        "the rotation to take effect",
        () -> Instant.now().isAfter(rotatedAt));
    long inRotated = before.stream().filter(r -> rotated.contains(r[2])).count();
    assertThat(inRotated).as("rows in rotated buckets").isBetween(20L, 100L);

    // Requests of at most 3 identifiers, and a chunk sent after 100 bytes of rows that stay:
    // every way a chunk ends, many times over.
    VeilClient client =
        VeilClient.builder().baseUrl(env.server.baseUrl()).apiKey(env.mapperKey).build();
    OutputRefresh refresh =
        new OutputRefresh(
            MapRun.caller(env.server.baseUrl(), env.mapperKey),
            client.mapper(),
            false,
            3,
            VeilClient.MAX_BATCH_BYTES,
            noProgress(),
            OutputRefresh.Steps.NONE,
            100);
    OutputRefresh.Result result;
    try (MapState state = MapState.open(Path.of(out + ".veil-state"));
        OutputFiles files = new OutputFiles(out)) {
      result = refresh.run(state, files, null);
    }

    assertThat(result.stale()).isEqualTo(inRotated);
    assertThat(result.remapped()).isEqualTo(inRotated);
    assertThat(result.rows()).isEqualTo(120);
    List<String[]> after = rows(out);
    Map<String, String[]> answers = serverMap(before.stream().map(r -> r[0]).toList());
    assertThat(after).hasSize(before.size());
    for (int i = 0; i < before.size(); i++) {
      String id = before.get(i)[0];
      assertThat(after.get(i)[0]).as("row %d", i).isEqualTo(id);
      assertThat(after.get(i)[1]).as("advertising id of %s", id).isEqualTo(answers.get(id)[0]);
      assertThat(after.get(i)[2]).as("bucket of %s", id).isEqualTo(answers.get(id)[1]);
      assertThat(!after.get(i)[1].equals(before.get(i)[1]))
          .as("%s changed iff its bucket rotated", id)
          .isEqualTo(rotated.contains(before.get(i)[2]));
    }
    assertThat(temporaryFilesLeft(new Case(in, out, "", "", ""))).isFalse();
  }

  private static List<String> identifiers(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).isEqualTo("identifier,advertising_id,bucket_id");
    return lines.subList(1, lines.size()).stream().map(l -> l.split(",")[0]).toList();
  }

  private static boolean temporaryFilesLeft(Case c) {
    return Files.exists(OutputFiles.temporaryFile(c.out()))
        || Files.exists(OutputFiles.temporaryFile(c.rejected()));
  }

  /**
   * The end every case must reach: two rows, the leaver rejected once, the state agreeing, nothing
   * left over.
   */
  private static void assertRefreshedOnce(Case c) throws IOException {
    CliRun again = map("--refresh", "--out", c.out().toString());
    assertThat(again.exitCode()).as(again.err()).isZero();
    // (Rows of other tests' rotations may be re-mapped here: the server is shared.)
    assertThat(again.err()).contains("wrote 2 rows").contains("and 1 rejected identifiers");
    assertThat(identifiers(c.out())).containsExactly(c.stays(), c.alsoStays());
    assertThat(Files.readAllLines(c.rejected()))
        .containsExactly("identifier,reason", c.leaves() + ",optout");
    assertThat(temporaryFilesLeft(c)).as("temporary files left beside " + c.out()).isFalse();
  }

  @ParameterizedTest(name = "stopped at {0}, then veil map --refresh")
  @EnumSource(OutputRefresh.Step.class)
  void aRefreshStoppedAnywhere_thenRefreshAgain_losesNoRow_andRejectsOnce(OutputRefresh.Step step)
      throws Exception {
    Case c = mappedThenOptedOut("refresh-" + step.name().toLowerCase(Locale.ROOT));
    refreshStoppedAt(c, step);

    if (step == OutputRefresh.Step.RENAMED) {
      assertThat(identifiers(c.out())).containsExactly(c.stays(), c.alsoStays());
    } else {
      assertThat(identifiers(c.out())).containsExactly(c.stays(), c.leaves(), c.alsoStays());
      assertThat(temporaryFilesLeft(c)).isTrue();
    }
    CliRun next = map("--refresh", "--out", c.out().toString());

    assertThat(next.exitCode()).as(next.err()).isZero();
    // Before the commit the refresh is done again; after it, the next run finds nothing rotated
    // since.
    assertThat(next.err())
        .contains(
            step == OutputRefresh.Step.WRITTEN ? "removed 1 opted out" : "removed 0 opted out");
    assertRefreshedOnce(c);
  }

  @ParameterizedTest(name = "stopped at {0}, then the import's command")
  @EnumSource(OutputRefresh.Step.class)
  void aRefreshStoppedAnywhere_thenTheImportsCommand_installsOnlyACommittedRefresh(
      OutputRefresh.Step step) throws Exception {
    Case c = mappedThenOptedOut("import-" + step.name().toLowerCase(Locale.ROOT));
    refreshStoppedAt(c, step);

    CliRun next = map("--in", c.in().toString(), "--out", c.out().toString());

    assertThat(next.exitCode()).as(next.err()).isZero();
    assertThat(next.err()).contains("is complete for");
    assertThat(temporaryFilesLeft(c)).isFalse();
    if (step
        == OutputRefresh.Step.WRITTEN) { // never committed: the output is the import's, untouched
      assertThat(identifiers(c.out())).containsExactly(c.stays(), c.leaves(), c.alsoStays());
      assertThat(c.rejected()).doesNotExist();
    } else {
      assertThat(identifiers(c.out())).containsExactly(c.stays(), c.alsoStays());
      assertThat(Files.readAllLines(c.rejected()))
          .containsExactly("identifier,reason", c.leaves() + ",optout");
    }
    assertRefreshedOnce(c);
  }

  @Test
  void aRefreshStoppedBetweenItsTwoRenames_isFinishedByTheNextRun() throws Exception {
    Case c = mappedThenOptedOut("between-renames");
    refreshStoppedAt(c, OutputRefresh.Step.COMMITTED);
    // The renames go rejected file first, then the output: stopped after the first of them.
    Files.move(
        OutputFiles.temporaryFile(c.rejected()), c.rejected(), StandardCopyOption.ATOMIC_MOVE);

    CliRun next = map("--refresh", "--out", c.out().toString());

    assertThat(next.exitCode()).as(next.err()).isZero();
    assertRefreshedOnce(c);
  }
}
