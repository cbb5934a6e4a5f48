package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.sdk.MappingCache;
import dev.veil.sdk.VeilClient;
import dev.veil.testing.AdminCli;
import dev.veil.testing.Await;
import dev.veil.testing.CliRun;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil map} and {@code veil decrypt} against a real {@code veil serve} child process, the
 * way a data collector and a bidder use them: 100,000 emails mapped, an admin salt rotation, a
 * refresh that re-maps exactly the rotated buckets' entries, a SIGKILL in the middle of a run and
 * its resumption. Results are checked against the server's own answers over raw HTTP.
 */
class ClientCommandsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ROWS = 100_000;

  @TempDir static Path dir;
  private static MappingServer env;

  @BeforeAll
  static void start() throws Exception {
    env = MappingServer.start(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    env.server.close();
  }

  /** {@code veil ARGS --url <server>}. */
  private static CliRun veil(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--url", env.server.baseUrl()));
    return CliRun.of(all.toArray(String[]::new));
  }

  /** {@code veil map ARGS --url <server> --progress lines}. */
  private static CliRun map(String... args) {
    List<String> all = new ArrayList<>(List.of("map"));
    all.addAll(List.of(args));
    all.addAll(List.of("--progress", "lines"));
    return veil(all.toArray(String[]::new));
  }

  private static Path emails(String name, String prefix, int n) throws IOException {
    Path file = dir.resolve(name);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < n; i++) {
      text.append(prefix).append(i).append("@example.com\n");
    }
    Files.writeString(file, text);
    return file;
  }

  /**
   * The output CSV as identifier -> [advertising_id, bucket_id], failing on a repeated identifier.
   */
  private static Map<String, String[]> readOutput(Path csv) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).isEqualTo("identifier,advertising_id,bucket_id");
    Map<String, String[]> rows = new LinkedHashMap<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",");
      assertThat(rows.put(f[0], new String[] {f[1], f[2]}))
          .as("row for %s appears once", f[0])
          .isNull();
    }
    return rows;
  }

  /** The server's own answers for emails, by raw POST /v1/identity/map. */
  private static Map<String, String[]> serverMap(List<String> emails) {
    return env.http.identityMap(env.mapperKey, "email", emails);
  }

  private static void assertMatchesServer(Map<String, String[]> output, int expectedRows)
      throws Exception {
    assertThat(output).hasSize(expectedRows);
    Map<String, String[]> answers = serverMap(new ArrayList<>(output.keySet()));
    output.forEach(
        (email, row) -> {
          assertThat(row[0]).as("advertising id of %s", email).isEqualTo(answers.get(email)[0]);
          assertThat(row[1]).as("bucket of %s", email).isEqualTo(answers.get(email)[1]);
        });
  }

  @Test
  void map100k_thenAdminSaltRotation_thenRefresh_remapsExactlyTheRotatedBucketsEntries()
      throws Exception {
    Path in = emails("rotation.txt", "rotation", ROWS);
    Path out = dir.resolve("rotation.csv");

    CliRun first = map("--in", in.toString(), "--out", out.toString(), "--api-key", env.mapperKey);

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.err())
        .contains("read 100,000 lines")
        .contains("mapped 100,000 new")
        .contains("wrote 100,000 rows")
        .contains("veil map: mapping ")
        .contains("/s");
    Map<String, String[]> before = readOutput(out);
    assertMatchesServer(before, ROWS);

    Instant beforeRotation = Instant.now().minusSeconds(1);
    AdminCli.Result rotate =
        AdminCli.run(env.server.grpcPort(), env.adminKey, "salts", "rotate", "--fraction", "0.1");
    assertThat(rotate.exitCode()).as(rotate.out()).isZero();
    Set<String> rotated = new HashSet<>();
    JsonNode buckets =
        JSON.readTree(
                env.http
                    .get(
                        "/v1/identity/buckets?since_timestamp=" + beforeRotation.getEpochSecond(),
                        env.mapperKey)
                    .body())
            .path("body");
    buckets.forEach(b -> rotated.add(b.get("bucket_id").asText()));
    assertThat(rotated).hasSize(26); // ceil(0.1 * 256)
    // The new salts take effect at the next whole second. An entry re-mapped before then cannot be
    // told from one mapped with the old salt, so the following poll would re-map it once more; wait
    // for the effective time to make the second refresh below a no-op.
    Instant effective =
        java.time.LocalDateTime.parse(buckets.get(0).get("last_updated").asText())
            .toInstant(java.time.ZoneOffset.UTC);
    Await.until(
        Duration.ofSeconds(5),
        "the rotation to take effect",
        () -> Instant.now().isAfter(effective));

    CliRun refresh = map("--refresh", "--out", out.toString(), "--api-key", env.mapperKey);

    assertThat(refresh.exitCode()).as(refresh.err()).isZero();
    Map<String, String[]> after = readOutput(out);
    assertMatchesServer(after, ROWS);
    // Read and written in one pass, in chunks (a request's stale rows, or 4 MB of rows that stay):
    // every row keeps its place.
    assertThat(after.keySet()).containsExactlyElementsOf(before.keySet());
    long inRotated = before.values().stream().filter(row -> rotated.contains(row[1])).count();
    assertThat(inRotated).isBetween(5_000L, 15_000L);
    long changed = 0;
    for (Map.Entry<String, String[]> row : before.entrySet()) {
      boolean didChange = !row.getValue()[0].equals(after.get(row.getKey())[0]);
      assertThat(didChange)
          .as("changed iff its bucket rotated: %s", row.getKey())
          .isEqualTo(rotated.contains(row.getValue()[1]));
      changed += didChange ? 1 : 0;
    }
    assertThat(changed).isEqualTo(inRotated);
    assertThat(refresh.err())
        .contains("bucket(s) rotated since the last poll; ")
        .contains(String.format("%,d entries were mapped before their bucket rotated", inRotated))
        .contains(String.format("re-mapped %,d in", inRotated))
        .contains("mapped 0 new");

    CliRun again = map("--refresh", "--out", out.toString(), "--api-key", env.mapperKey);
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.err()).contains("re-mapped 0 in");
    assertThat(readOutput(out).keySet()).containsExactlyElementsOf(after.keySet());
    assertThat(MapFiles.temporaryFile(out)).doesNotExist();
  }

  @Test
  void sigkillInTheMiddleOfARun_thenTheSameCommand_resumesWithoutLossOrDuplicates()
      throws Exception {
    Path in = emails("kill.txt", "kill", ROWS);
    Path out = dir.resolve("kill.csv");
    Path cache = dir.resolve("kill.csv.veil-cache");
    Process child = startMap(in, out, dir.resolve("kill.log"), "--progress", "lines");
    try {
      // Batches of 20 keep the child busy for a few seconds: the kill lands in the middle of the
      // run.
      Await.until(Duration.ofMinutes(2), "some batches committed", () -> mappedIn(cache) >= 10_000);
      assertThat(child.isAlive()).as("still mapping when killed").isTrue();
      child.destroyForcibly(); // SIGKILL: no shutdown hook, no close
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      child.destroyForcibly();
    }
    long committed = mappedIn(cache);
    assertThat(committed).isBetween(10_000L, ROWS - 1L);
    assertThat(out).doesNotExist();
    assertThat(dir.resolve("kill.csv.tmp"))
        .as("the rows written so far, the run's progress")
        .exists();

    CliRun resumed =
        map("--in", in.toString(), "--out", out.toString(), "--api-key", env.mapperKey);

    assertThat(resumed.exitCode()).as(resumed.err()).isZero();
    assertThat(resumed.err())
        .contains("resumed reading")
        .contains(String.format("mapped %,d new", ROWS - committed));
    assertMatchesServer(
        readOutput(out), ROWS); // each identifier once: none lost, none written twice
    assertThat(Files.readAllLines(out)).hasSize(ROWS + 1);
    assertThat(dir.resolve("kill.csv.tmp")).doesNotExist();
  }

  @Test
  void sigtermInTheMiddleOfARun_saysHowToResume_keepsTheRowsWritten_andTheSameCommandFinishes()
      throws Exception {
    Path in = emails("term.txt", "term", ROWS);
    Path out = dir.resolve("term.csv");
    Path cache = dir.resolve("term.csv.veil-cache");
    Path log = dir.resolve("term.log");
    Process child = startMap(in, out, log, "--progress", "none");
    try {
      Await.until(Duration.ofMinutes(2), "some batches committed", () -> mappedIn(cache) >= 10_000);
      assertThat(child.isAlive()).as("still mapping when stopped").isTrue();
      assertThat(dir.resolve("term.csv.tmp")).as("the output being written").exists();
      child.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the shutdown hooks run
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      child.destroyForcibly();
    }

    assertThat(child.exitValue()).isEqualTo(128 + 15);
    assertThat(Files.readString(log))
        .contains(
            "veil map: stopped; progress is kept in "
                + cache
                + "; run the same command again to resume");
    assertThat(dir.resolve("term.csv.tmp"))
        .as("the rows written so far, the run's progress")
        .exists();
    assertThat(out).doesNotExist();
    long committed = mappedIn(cache);
    assertThat(committed).isBetween(10_000L, ROWS - 1L);

    CliRun resumed =
        map("--in", in.toString(), "--out", out.toString(), "--api-key", env.mapperKey);

    assertThat(resumed.exitCode()).as(resumed.err()).isZero();
    assertThat(resumed.err())
        .contains("resumed reading")
        .contains(String.format("mapped %,d new", ROWS - committed));
    assertMatchesServer(readOutput(out), ROWS);
    assertThat(Files.readAllLines(out)).hasSize(ROWS + 1);
  }

  /**
   * The build's runtime image for {@code veil map} (veil-cli/src/build/map-runtime.sh): only the
   * JDK modules it names, so a module that {@code veil map} needs and the list lacks fails here. On
   * a JDK without jlink the build makes none and the test is skipped, unless {@value
   * #REQUIRE_RUNTIME_ENV}=1 (CI) makes it fail.
   */
  @Test
  void mapsAFile_onTheBuildsRuntimeImage() throws Exception {
    Path java = Path.of(System.getProperty("user.dir"), "target", "map-runtime", "bin", "java");
    if (!Files.isExecutable(java)) {
      String reason =
          "no runtime image at "
              + java
              + " (the build makes one only with a JDK that has jlink and jmods)";
      if ("1".equals(System.getenv(REQUIRE_RUNTIME_ENV))) {
        fail(reason + "; " + REQUIRE_RUNTIME_ENV + "=1 demands it");
      }
      System.err.println("SKIPPED ClientCommandsIT.mapsAFile_onTheBuildsRuntimeImage: " + reason);
      Assumptions.abort(reason);
    }
    Path in = emails("image.txt", "image", 12_000);
    Path out = dir.resolve("image.csv");
    Path log = dir.resolve("image.log");

    Process run = startMap(java, in, out, log, "--progress", "lines", "--batch-size", "5000");

    assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(run.exitValue()).as(Files.readString(log)).isZero();
    assertThat(Files.readString(log)).contains("mapped 12,000 new");
    assertMatchesServer(readOutput(out), 12_000);
  }

  private static final String REQUIRE_RUNTIME_ENV = "VEIL_REQUIRE_MAP_RUNTIME";

  /**
   * {@code veil map} of {@code in} to {@code out} in a child JVM, in batches of 20 (a run of a few
   * seconds, to stop in the middle), its output to {@code log}.
   */
  private static Process startMap(Path in, Path out, Path log, String... more) throws IOException {
    List<String> options = new ArrayList<>(List.of("--batch-size", "20"));
    options.addAll(List.of(more));
    return startMap(
        Path.of(System.getProperty("java.home"), "bin", "java"),
        in,
        out,
        log,
        options.toArray(String[]::new));
  }

  /** {@code veil map} of {@code in} to {@code out} on {@code java}, its output to {@code log}. */
  private static Process startMap(Path java, Path in, Path out, Path log, String... more)
      throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                java.toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.veil.cli.Main",
                "map",
                "--in",
                in.toString(),
                "--out",
                out.toString(),
                "--url",
                env.server.baseUrl()));
    command.addAll(List.of(more));
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment()
        .put(
            "VEIL_API_KEY", env.mapperKey); // the key from the environment, as users should pass it
    return pb.start();
  }

  /**
   * Entries of a mapping cache (possibly being written, and locked by the run that writes it)
   * mapped and on disk: read from a copy, which opening cuts after its last whole record, as after
   * a crash.
   */
  private static long mappedIn(Path cache) {
    if (!Files.exists(cache)) {
      return 0;
    }
    Path copy = dir.resolve("copy-of-" + cache.getFileName());
    try {
      Files.copy(cache, copy, StandardCopyOption.REPLACE_EXISTING);
      VeilClient client =
          VeilClient.builder().baseUrl(env.server.baseUrl()).apiKey(env.mapperKey).build();
      try (MappingCache opened = client.mappingCache(copy).build()) {
        return opened.size() - opened.pendingCount();
      } finally {
        Files.deleteIfExists(copy);
        Files.deleteIfExists(Path.of(copy + ".lock"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void csvWithHeader_hashLocally_invalidAndOptedOutIdentifiers_areReportedInTheRejectedFile()
      throws Exception {
    String optOutKey =
        AdminCli.createClient(env.server.grpcPort(), env.adminKey, "optout-intake", "OPTOUT");
    assertThat(env.http.post("/v1/optout", optOutKey, "{\"email\":\"leaver@example.com\"}").code())
        .isEqualTo(200);
    Path in = dir.resolve("people.csv");
    Files.writeString(
        in,
        "name,email\n"
            + "\"Doe, Jane\",Jane.Doe@Example.com\n"
            + "Bob,bob@example.com\n"
            + "Nobody,not-an-email\n"
            + "Leaver,leaver@example.com\n"
            + "Nameless\n\n"
            + "Empty,\n"
            + "\"Quoted, only\"\n"
            + "Bob again,bob@example.com\n",
        StandardCharsets.UTF_8);
    Path out = dir.resolve("people-out.csv");

    CliRun run =
        map(
            "--in",
            in.toString(),
            "--out",
            out.toString(),
            "--api-key",
            env.mapperKey,
            "--hash-locally");

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines).hasSize(3); // the header, then a row per distinct identifier
    Map<String, String[]> answers = serverMap(List.of("jane.doe@example.com", "bob@example.com"));
    assertThat(lines.get(1))
        .isEqualTo("Jane.Doe@Example.com," + String.join(",", answers.get("jane.doe@example.com")));
    assertThat(lines.get(2))
        .isEqualTo("bob@example.com," + String.join(",", answers.get("bob@example.com")));
    assertThat(Files.readAllLines(Path.of(out + ".rejected.csv")))
        .containsExactly(
            "identifier,reason", "not-an-email,invalid identifier", "leaver@example.com,optout");
    assertThat(run.err())
        .contains("read 10 lines")
        .contains(
            "5 identifiers, 1 invalid, 1 already held, 4 without a value in the column (skipped)")
        .contains("removed 1 opted out");
  }

  @Test
  void refreshBeforeAnImport_saysSo_andAfterAnOptOut_movesTheRowToTheRejectedFile()
      throws Exception {
    Path out = dir.resolve("leaving.csv");
    CliRun early = map("--refresh", "--out", out.toString(), "--api-key", env.mapperKey);
    assertThat(early.exitCode()).isEqualTo(1);
    assertThat(early.err()).contains("nothing to refresh in").contains("veil map --in FILE");

    Path in = dir.resolve("leaving.txt");
    Files.writeString(in, "stays@example.com\nleaves@example.com\nalso.stays@example.com\n");
    assertThat(
            map("--in", in.toString(), "--out", out.toString(), "--api-key", env.mapperKey)
                .exitCode())
        .isZero();
    String bucket = readOutput(out).get("leaves@example.com")[1];
    String optOutKey =
        AdminCli.createClient(env.server.grpcPort(), env.adminKey, "optout-intake-2", "OPTOUT");
    assertThat(env.http.post("/v1/optout", optOutKey, "{\"email\":\"leaves@example.com\"}").code())
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
        java.time.LocalDateTime.parse(buckets.get(0).get("last_updated").asText())
            .toInstant(java.time.ZoneOffset.UTC);
    Await.until(
        Duration.ofSeconds(5),
        "the rotation to take effect",
        () -> Instant.now().isAfter(effective));

    CliRun refresh = map("--refresh", "--out", out.toString(), "--api-key", env.mapperKey);

    assertThat(refresh.exitCode()).as(refresh.err()).isZero();
    assertThat(readOutput(out).keySet())
        .containsExactly("stays@example.com", "also.stays@example.com");
    assertThat(Files.readAllLines(Path.of(out + ".rejected.csv")))
        .containsExactly("identifier,reason", "leaves@example.com,optout");
    assertThat(refresh.err()).contains("removed 1 opted out").contains("wrote 2 rows");
  }

  @Test
  void longIdentifiers_areSplitIntoBodiesTheServerTakes() throws Exception {
    // 12,000 emails of about 250 bytes: read in chunks of 1,000, 2,000, 4,000 and 5,000, the last
    // of
    // which would make a body of 1.25 MB, more than the server takes (1 MiB).
    String domain = "d".repeat(60) + "." + "e".repeat(60) + "." + "f".repeat(60) + ".com";
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 12_000; i++) {
      text.append("long")
          .append(i)
          .append('.')
          .append("a".repeat(50))
          .append('@')
          .append(domain)
          .append('\n');
    }
    Path in = dir.resolve("long.txt");
    Files.writeString(in, text);
    Path out = dir.resolve("long.csv");

    CliRun run = map("--in", in.toString(), "--out", out.toString(), "--api-key", env.mapperKey);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(readOutput(out)).hasSize(12_000);
    assertThat(Path.of(out + ".rejected.csv")).doesNotExist();
  }

  @Test
  void usageErrors_andAWrongKey_haveTheirExitCodes() throws Exception {
    Path in = emails("small.txt", "small", 3);

    assertThat(map("--out", dir.resolve("x.csv").toString()).exitCode()).isEqualTo(2);
    assertThat(
            map("--in", in.toString(), "--out", dir.resolve("x.csv").toString(), "--type", "fax")
                .exitCode())
        .isEqualTo(2);
    CliRun beyond =
        map(
            "--in",
            in.toString(),
            "--out",
            dir.resolve("x.csv").toString(),
            "--column",
            "9",
            "--api-key",
            env.mapperKey);
    assertThat(beyond.exitCode()).isEqualTo(2);
    assertThat(beyond.err()).contains("--column 9 is beyond the first line, which has 1 column");
    CliRun wrongKey =
        map(
            "--in",
            in.toString(),
            "--out",
            dir.resolve("x.csv").toString(),
            "--api-key",
            "vk1.AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    assertThat(wrongKey.exitCode()).isEqualTo(1);
    assertThat(wrongKey.err())
        .contains("the server refused: HTTP 401 unauthorized")
        .contains("run the same command");
    CliRun noServer =
        CliRun.of(
            "map",
            "--in",
            in.toString(),
            "--out",
            dir.resolve("y.csv").toString(),
            "--url",
            "http://127.0.0.1:1",
            "--api-key",
            env.mapperKey,
            "--progress",
            "none");
    assertThat(noServer.exitCode()).isEqualTo(3);
  }

  @Test
  void anInputNamedAsAFileTheRunWrites_isRefused_andLeftAsItIs() throws Exception {
    Path in = emails("same.txt", "same", 3);
    String before = Files.readString(in);
    Path link = dir.resolve("same-link.csv");
    Files.createSymbolicLink(link, in);

    CliRun sameAsOut =
        map("--in", in.toString(), "--out", in.toString(), "--api-key", env.mapperKey);
    CliRun throughALink =
        map("--in", in.toString(), "--out", link.toString(), "--api-key", env.mapperKey);
    Path rejectedName = emails("r.csv.rejected.csv", "rejected", 3);
    CliRun sameAsRejected =
        map(
            "--in",
            rejectedName.toString(),
            "--out",
            dir.resolve("r.csv").toString(),
            "--api-key",
            env.mapperKey);
    CliRun cacheIsOut =
        map(
            "--in",
            in.toString(),
            "--out",
            dir.resolve("same-out.csv").toString(),
            "--cache",
            dir.resolve("same-out.csv").toString(),
            "--api-key",
            env.mapperKey);

    assertThat(sameAsOut.err())
        .contains("--in " + in + " is also --out")
        .contains("choose another --out");
    assertThat(throughALink.err()).contains("--in " + in + " is also --out");
    assertThat(sameAsRejected.err())
        .contains("--in " + rejectedName + " is also the rejected file");
    assertThat(cacheIsOut.err())
        .contains("--cache " + dir.resolve("same-out.csv") + " is also --out");
    for (CliRun run : List.of(sameAsOut, throughALink, sameAsRejected, cacheIsOut)) {
      assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    }
    assertThat(Files.readString(in)).isEqualTo(before);
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(Files.exists(dir.resolve("same-out.csv"))).isFalse();
  }

  @Test
  void fileProblems_areSaidPlainly_withExitCode1_andNoOutput() throws Exception {
    Path in = emails("files.txt", "files", 3);
    Path out = dir.resolve("files-out.csv");
    Path binary = dir.resolve("binary.txt");
    Files.write(
        binary,
        new byte[] {'a', '@', 'b', '.', 'c', '\n', 'x', (byte) 0xFF, (byte) 0xFE, '@', 'y', '\n'});

    CliRun directory =
        map("--in", dir.toString(), "--out", out.toString(), "--api-key", env.mapperKey);
    CliRun missing =
        map(
            "--in",
            dir.resolve("nope.txt").toString(),
            "--out",
            out.toString(),
            "--api-key",
            env.mapperKey);
    CliRun outDirectory =
        map("--in", in.toString(), "--out", dir.toString(), "--api-key", env.mapperKey);
    CliRun noDirectory =
        map(
            "--in",
            in.toString(),
            "--out",
            dir.resolve("no/such/out.csv").toString(),
            "--api-key",
            env.mapperKey);
    CliRun notUtf8 =
        map("--in", binary.toString(), "--out", out.toString(), "--api-key", env.mapperKey);
    Path pipe = dir.resolve("pipe");
    assertThat(new ProcessBuilder("mkfifo", pipe.toString()).inheritIO().start().waitFor())
        .isZero();
    CliRun pipeIn =
        map("--in", pipe.toString(), "--out", out.toString(), "--api-key", env.mapperKey);
    CliRun pipeOut =
        map("--in", in.toString(), "--out", pipe.toString(), "--api-key", env.mapperKey);
    Path target = dir.resolve("target.csv");
    Files.writeString(target, "kept\n");
    Path linkOut = Files.createSymbolicLink(dir.resolve("link-out.csv"), target);
    CliRun linkedOut =
        map("--in", in.toString(), "--out", linkOut.toString(), "--api-key", env.mapperKey);

    assertThat(directory.err())
        .contains("--in " + dir + " is a directory, not a file of identifiers");
    assertThat(missing.err()).contains("no such file: " + dir.resolve("nope.txt"));
    assertThat(outDirectory.err()).contains("--out " + dir + " is a directory; give a file's name");
    assertThat(noDirectory.err()).contains("no such directory: " + dir.resolve("no/such"));
    assertThat(notUtf8.err()).contains(binary + ", line 2 is not UTF-8 text");
    assertThat(pipeIn.err())
        .contains("--in " + pipe + " is not a regular file")
        .contains("save it to a file first");
    assertThat(pipeOut.err()).contains("--out " + pipe + " exists and is not a regular file");
    assertThat(linkedOut.err())
        .contains(
            "--out "
                + linkOut
                + " is a symbolic link; give the file it names ("
                + target.toRealPath()
                + ")");
    for (CliRun run :
        List.of(
            directory, missing, outDirectory, noDirectory, notUtf8, pipeIn, pipeOut, linkedOut)) {
      assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
      assertThat(run.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }
    assertThat(Files.exists(dir.resolve("no"))).isFalse();
    assertThat(Files.exists(out)).isFalse();
    assertThat(Files.isSymbolicLink(linkOut)).isTrue();
    assertThat(Files.readString(target)).isEqualTo("kept\n");
    assertThat(Files.isRegularFile(pipe, LinkOption.NOFOLLOW_LINKS)).isFalse(); // still the pipe
  }

  @Test
  void anImportThatMapped_marksTheLaunchersArchive_aResumeWithNothingLeftDoesNot()
      throws Exception {
    Path in = emails("archive.txt", "archive", 3);
    Path out = dir.resolve("archive.csv");
    Path archive = dir.resolve("veil-map-test.jsa.1.dump");
    System.setProperty(ArchiveMark.PROPERTY, archive.toString());
    try {
      assertThat(
              map("--in", in.toString(), "--out", out.toString(), "--api-key", env.mapperKey)
                  .exitCode())
          .isZero();
      assertThat(Path.of(archive + ".ok")).exists();

      Files.delete(Path.of(archive + ".ok"));
      CliRun again =
          map("--in", in.toString(), "--out", out.toString(), "--api-key", env.mapperKey);
      assertThat(again.exitCode()).isZero();
      assertThat(again.err()).contains("nothing to map");
      assertThat(Path.of(archive + ".ok")).doesNotExist();
    } finally {
      System.clearProperty(ArchiveMark.PROPERTY);
    }
  }

  // --- veil decrypt ---

  @Test
  void decrypt_showsWhatABidderSees_andRejectsATamperedToken() throws Exception {
    String publisherKey =
        AdminCli.createClient(env.server.grpcPort(), env.adminKey, "publisher", "GENERATOR");
    String bidderKey =
        AdminCli.createClient(env.server.grpcPort(), env.adminKey, "bidder", "ID_READER");
    JsonNode generated =
        JSON.readTree(
                env.http
                    .post("/v1/token/generate", publisherKey, "{\"email\":\"reader@example.com\"}")
                    .body())
            .path("body");
    String token = generated.get("advertising_token").asText();
    String advertisingId = serverMap(List.of("reader@example.com")).get("reader@example.com")[0];

    CliRun text = veil("decrypt", token, "--api-key", bidderKey);
    CliRun json = veil("decrypt", token, "--api-key", bidderKey, "--json");
    String tampered =
        token.substring(0, 50) + (token.charAt(50) == 'A' ? 'B' : 'A') + token.substring(51);
    CliRun rejected = veil("decrypt", tampered, "--api-key", bidderKey);
    CliRun noRole = veil("decrypt", token, "--api-key", env.mapperKey);

    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("status          SUCCESS")
        .contains("advertising id  " + advertisingId)
        .contains("identity type   EMAIL")
        .contains("expires in      71h 59m");
    JsonNode fields = JSON.readTree(json.out());
    assertThat(fields.get("advertising_id").asText()).isEqualTo(advertisingId);
    String siteId =
        text.out()
            .lines()
            .filter(l -> l.startsWith("site id "))
            .findFirst()
            .orElseThrow()
            .substring("site id ".length())
            .strip();
    assertThat(fields.get("site_id").isInt()).as(json.out()).isTrue();
    assertThat(fields.get("site_id").asInt()).isEqualTo(Integer.parseInt(siteId));
    assertThat(fields.get("expires").asText())
        .isEqualTo(Instant.ofEpochMilli(generated.get("identity_expires").asLong()).toString());
    assertThat(rejected.exitCode()).isEqualTo(4);
    assertThat(rejected.out()).contains("TAMPERED").doesNotContain(advertisingId);
    assertThat(noRole.exitCode()).isEqualTo(1);
    assertThat(noRole.err()).contains("ID_READER");
  }
}
