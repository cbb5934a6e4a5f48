package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.server.VeilServer;
import dev.veil.testing.CliRun;
import dev.veil.testing.CliStream;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.ServerProcess;
import dev.veil.testing.TestConfigs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil admin deduction} on the lifecycle additions of {@code DeductionAdminApi}, against a
 * real server on a loopback port: list filters, versions and conflicts, validity windows and the
 * expiry job, {@code history}, and {@code watch} with its resume token (in-process, and in a JVM of
 * its own whose output is a pipe).
 */
class DeductionLifecycleCliIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Pattern TOKEN = Pattern.compile(" resume-token=(\\S+)$");

  private final MutableClock clock = MutableClock.at("2026-03-01T12:00:00Z");
  private final VeilServer server =
      VeilServer.start(
          TestConfigs.config("deductions.expiry-interval", "50ms"), clock, new InMemoryStores());
  private final String adminKey = server.bootstrapAdminKey().orElseThrow();
  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path dir;

  @AfterEach
  void stop() {
    server.close();
  }

  private List<String> admin(String key, String... args) {
    List<String> all =
        new ArrayList<>(
            List.of("admin", "--port", String.valueOf(server.grpcPort()), "--key", key));
    all.addAll(List.of(args));
    return all;
  }

  private CliRun deduction(String... args) {
    List<String> all = admin(adminKey, "deduction");
    all.addAll(List.of(args));
    return CliRun.of(all.toArray(String[]::new));
  }

  private CliStream watch(String... args) {
    List<String> all = admin(adminKey, "deduction", "watch");
    all.addAll(List.of(args));
    return CliStream.start(all.toArray(String[]::new));
  }

  private static CliRun assertOk(CliRun run) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isZero();
    assertThat(run.err()).isEmpty();
    return run;
  }

  private JsonNode parse(String text) throws IOException {
    return json.readTree(text);
  }

  /** The ids of the records {@code deduction <args> --json} lists, asserting it succeeded. */
  private List<Integer> ids(String... args) throws IOException {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--json");
    CliRun run = assertOk(deduction(all.toArray(String[]::new)));
    return StreamSupport.stream(parse(run.out()).get("data").spliterator(), false)
        .map(d -> d.get("id").asInt())
        .toList();
  }

  /** The resume token at the end of a line {@code watch} printed. */
  private static String token(String line) {
    Matcher m = TOKEN.matcher(line);
    assertThat(m.find()).as(line).isTrue();
    return m.group(1);
  }

  /**
   * The cells of the row of the table {@code run} printed whose first cell is {@code first}
   * (columns are two or more spaces apart; the cells of these tests have at most one in a row).
   */
  private static List<String> row(CliRun run, String first) {
    return run.out()
        .lines()
        .filter(l -> l.startsWith(first + " "))
        .findFirst()
        .map(l -> List.of(l.split(" {2,}")))
        .orElseThrow(() -> new AssertionError("no row " + first + " in\n" + run.out()));
  }

  @Test
  void list_withFilters_listsTheRecordsMatchingEveryOne_withoutThemTheOpenOnes()
      throws IOException {
    // d1 to d6 a second apart from 12:00:00; odd ones pay method 1, even ones 0; d2 closed.
    for (int i = 1; i <= 6; i++) {
      assertOk(deduction("create", "--title", "d" + i, "--pay-method-id", String.valueOf(i % 2)));
      clock.advance(Duration.ofSeconds(1));
    }
    assertOk(deduction("close", "2"));

    assertThat(ids("list")).containsExactly(1, 3, 4, 5, 6);
    assertThat(ids("list", "--status", "EXPIRED")).containsExactly(2);
    assertThat(ids("list", "--status", "NORMAL")).containsExactly(1, 3, 4, 5, 6);
    assertThat(ids("list", "--status", "NORMAL,EXPIRED")).containsExactly(1, 2, 3, 4, 5, 6);
    assertThat(ids("list", "--status", "normal", "--status", "expired"))
        .containsExactly(1, 2, 3, 4, 5, 6);
    assertThat(ids("list", "--pay-method-id", "0")).containsExactly(4, 6);
    assertThat(ids("list", "--pay-method-id", "0", "--status", "NORMAL,EXPIRED"))
        .containsExactly(2, 4, 6);
    assertThat(ids("list", "--pay-method-id", "0", "--pay-method-id", "1"))
        .containsExactly(1, 3, 4, 5, 6);
    assertThat(ids("list", "--pay-method-id", "7")).isEmpty();
    assertThat(
            ids(
                "list",
                "--status",
                "NORMAL,EXPIRED",
                "--created-from",
                "2026-03-01T12:00:01Z",
                "--created-before",
                "2026-03-01T12:00:04Z"))
        .containsExactly(2, 3, 4);
    assertThat(ids("list", "--created-from", "2026-03-01T13:00:04+01:00")).containsExactly(5, 6);
    assertThat(ids("list", "--created-before", "2026-03-02")).containsExactly(1, 3, 4, 5, 6);

    CliRun firstPage = assertOk(deduction("list", "--pay-method-id", "1", "--page-size", "2"));
    assertThat(firstPage.out()).contains("d1", "d3").doesNotContain("d5");
    String next =
        parse(deduction("list", "--pay-method-id", "1", "--page-size", "2", "--json").out())
            .get("next_page_token")
            .asText();
    assertThat(firstPage.out()).contains("--page-token " + next);
    assertThat(ids("list", "--pay-method-id", "1", "--page-size", "2", "--page-token", next))
        .containsExactly(5);

    CliRun empty =
        deduction(
            "list",
            "--created-from",
            "2026-03-01T12:00:03Z",
            "--created-before",
            "2026-03-01T12:00:03Z");
    assertThat(empty.exitCode()).isEqualTo(1);
    assertThat(empty.err()).startsWith("veil admin: the server answered code 4: invalid argument");
  }

  @Test
  void tables_showVersionValidityWindowAndCloseReason_andJsonHasTheFields() throws IOException {
    CliRun created = assertOk(deduction("create", "--title", "trial"));
    List<String> lines = created.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("ID")
        .containsSubsequence(
            "TITLE",
            "STATUS",
            "CLOSE REASON",
            "VERSION",
            "PAY METHOD",
            "VALID UNTIL",
            "CREATED",
            "UPDATED",
            "DESC");
    assertThat(row(created, "1"))
        .containsExactly(
            "1",
            "trial",
            "NORMAL",
            "-",
            "1",
            "0",
            "-",
            "2026-03-01T12:00:00Z",
            "2026-03-01T12:00:00Z",
            "-");

    CliRun closed = assertOk(deduction("close", "1"));
    assertThat(row(closed, "1").subList(2, 5)).containsExactly("EXPIRED", "MANUAL", "2");

    JsonNode record = parse(deduction("get", "1", "--json").out()).get("data").get(0);
    assertThat(record.get("version").asLong()).isEqualTo(2);
    assertThat(record.get("close_reason").asInt()).isEqualTo(1);
    assertThat(record.get("valid_until_ms").asLong()).isZero();
  }

  @Test
  void expectedVersion_ofAnotherVersion_exits1_withCode5_andChangesNothing() throws IOException {
    assertOk(deduction("create", "--title", "v"));
    assertOk(deduction("close", "1", "--expected-version", "1"));

    CliRun stale = deduction("open", "1", "--expected-version", "1");
    CliRun staleJson = deduction("close", "1", "--expected-version", "1", "--json");

    assertThat(stale.exitCode()).isEqualTo(1);
    assertThat(stale.out()).isEmpty();
    assertThat(stale.err())
        .isEqualTo(
            "veil admin: the server answered code 5: version conflict: the deduction is at"
                + " version 2"
                + System.lineSeparator());
    assertThat(staleJson.exitCode()).isEqualTo(1);
    assertThat(parse(staleJson.out()).get("code").asInt()).isEqualTo(5);
    assertThat(
            parse(deduction("get", "1", "--json").out()).get("data").get(0).get("status").asInt())
        .isEqualTo(1);

    CliRun current = assertOk(deduction("open", "1", "--expected-version", "2"));
    assertThat(row(current, "1").subList(2, 5)).containsExactly("NORMAL", "-", "3");
  }

  @Test
  void validUntil_onCreateAndOpen_setsTheWindow_whoseEndTheExpiryJobCloses_asHistoryShows()
      throws Exception {
    CliRun created =
        assertOk(deduction("create", "--title", "trial", "--valid-until", "2026-03-01T12:01:00Z"));
    assertThat(row(created, "1").subList(2, 7))
        .containsExactly("NORMAL", "-", "1", "0", "2026-03-01T12:01:00Z");
    CliRun past = deduction("create", "--title", "late", "--valid-until", "2026-02-01");
    assertThat(past.exitCode()).isEqualTo(1);
    assertThat(past.err()).contains("code 4: invalid argument");

    CliRun extended = assertOk(deduction("open", "1", "--valid-until", "2026-03-01T12:02:00Z"));
    assertThat(row(extended, "1").subList(2, 7))
        .containsExactly("NORMAL", "-", "2", "0", "2026-03-01T12:02:00Z");

    try (CliStream watching = watch()) {
      watching.awaitLines(2, WAIT); // created, window moved
      clock.advance(Duration.ofMinutes(3)); // past the window: the expiry job closes the record
      assertThat(watching.awaitLines(3, WAIT).get(2))
          .startsWith("2026-03-01T12:03:00Z EXPIRED id=1 title=\"trial\" status=EXPIRED")
          .contains(" actor=\"veil expiry job\" ");
    }
    assertThat(row(assertOk(deduction("get", "1")), "1").subList(2, 7))
        .containsExactly("EXPIRED", "SCHEDULED", "3", "0", "2026-03-01T12:02:00Z");
    CliRun withoutWindow = deduction("open", "1");
    assertThat(withoutWindow.exitCode()).isEqualTo(1);
    assertThat(withoutWindow.err()).contains("code 4: invalid argument");
    CliRun reopened = assertOk(deduction("open", "1", "--valid-until", "2026-04-01"));
    assertThat(row(reopened, "1").subList(2, 7))
        .containsExactly("NORMAL", "-", "4", "0", "2026-04-01T00:00:00Z");

    CliRun history = assertOk(deduction("history", "1"));
    List<String> lines = history.out().lines().toList();
    assertThat(lines).hasSize(5);
    assertThat(lines.get(0))
        .startsWith("TIME")
        .containsSubsequence("KIND", "STATUS", "CLOSE REASON", "VERSION", "VALID UNTIL", "ACTOR");
    assertThat(lines.get(1).split(" {2,}"))
        .containsExactly(
            "2026-03-01T12:00:00Z", "CREATED", "NORMAL", "-", "1", "2026-03-01T12:01:00Z", "admin");
    assertThat(lines.get(2).split(" {2,}"))
        .containsExactly(
            "2026-03-01T12:00:00Z", "UPDATED", "NORMAL", "-", "2", "2026-03-01T12:02:00Z", "admin");
    assertThat(lines.get(3).split(" {2,}"))
        .containsExactly(
            "2026-03-01T12:03:00Z",
            "EXPIRED",
            "EXPIRED",
            "SCHEDULED",
            "3",
            "2026-03-01T12:02:00Z",
            "veil expiry job");
    assertThat(lines.get(4).split(" {2,}"))
        .containsExactly(
            "2026-03-01T12:03:00Z", "OPENED", "NORMAL", "-", "4", "2026-04-01T00:00:00Z", "admin");

    JsonNode events = parse(assertOk(deduction("history", "1", "--json")).out()).get("events");
    assertThat(events).hasSize(4);
    assertThat(events.get(2).get("kind").asInt()).isEqualTo(4);
    assertThat(events.get(2).get("actor").asText()).isEqualTo("veil expiry job");
    assertThat(events.get(2).get("deduction").get("close_reason").asInt()).isEqualTo(2);
    assertThat(events.get(3).get("resume_token").asText()).isNotEmpty();

    CliRun missing = deduction("history", "99");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err())
        .isEqualTo(
            "veil admin: the server answered code 2: record not found" + System.lineSeparator());
  }

  @Test
  void watch_printsEachChangeAsItHappens_andAResumedWatchOnlyTheLaterOnes() throws Exception {
    assertOk(deduction("create", "--title", "Gym membership"));
    List<String> first;
    try (CliStream all = watch()) {
      assertThat(all.awaitLines(1, WAIT).get(0))
          .startsWith("2026-03-01T12:00:00Z CREATED id=1 title=\"Gym membership\" status=NORMAL")
          .contains(" version=1 actor=\"admin\" resume-token=");

      clock.advance(Duration.ofSeconds(5));
      assertOk(deduction("close", "1"));
      assertThat(all.awaitLines(2, WAIT).get(1))
          .startsWith("2026-03-01T12:00:05Z CLOSED id=1 title=\"Gym membership\" status=EXPIRED")
          .contains(" version=2 ");
      assertOk(deduction("create", "--title", "Pool \"day\" pass"));
      assertOk(deduction("open", "1"));
      first = all.awaitLines(4, WAIT);
      assertThat(first.get(2)).contains(" CREATED id=2 title=\"Pool \\\"day\\\" pass\" ");
      assertThat(first.get(3)).contains(" OPENED id=1 ").contains(" version=3 ");

      assertThat(all.stop(WAIT)).isZero();
      assertThat(all.err()).isEmpty();
    }
    assertThat(first.stream().map(DeductionLifecycleCliIT::token).distinct()).hasSize(4);

    try (CliStream resumed = watch("--resume-token", token(first.get(1)))) {
      assertThat(resumed.awaitLines(2, WAIT)).isEqualTo(first.subList(2, 4));
      assertOk(deduction("create", "--title", "later"));
      List<String> lines = resumed.awaitLines(3, WAIT);
      assertThat(lines.get(2)).contains(" CREATED id=3 title=\"later\" ");
      assertThat(resumed.stop(WAIT)).isZero();
      assertThat(resumed.lines()).hasSize(3);
    }
  }

  @Test
  void watch_withJson_printsOneObjectALine() throws Exception {
    assertOk(deduction("create", "--title", "a", "--valid-until", "2026-04-01"));
    try (CliStream watching = watch("--json")) {
      watching.awaitLines(1, WAIT);
      assertOk(deduction("close", "1"));
      List<String> lines = watching.awaitLines(2, WAIT);

      JsonNode created = parse(lines.get(0));
      JsonNode closed = parse(lines.get(1));
      assertThat(created.get("kind").asInt()).isEqualTo(1);
      assertThat(created.get("deduction").get("title").asText()).isEqualTo("a");
      assertThat(created.get("deduction").get("valid_until_ms").asLong())
          .isEqualTo(java.time.Instant.parse("2026-04-01T00:00:00Z").toEpochMilli());
      assertThat(created.get("actor").asText()).isEqualTo("admin");
      assertThat(closed.get("kind").asInt()).isEqualTo(3);
      assertThat(closed.get("deduction").get("version").asLong()).isEqualTo(2);
      assertThat(closed.get("deduction").get("close_reason").asInt()).isEqualTo(1);
      assertThat(closed.get("resume_token").asText()).isNotEmpty();
      assertThat(watching.stop(WAIT)).isZero();
    }
  }

  @Test
  void watch_whenTheServerStops_exits1_sayingWhichTokenToResumeWith() throws Exception {
    assertOk(deduction("create", "--title", "a"));
    try (CliStream watching = watch()) {
      String last = token(watching.awaitLines(1, WAIT).get(0));

      server.close();

      assertThat(watching.awaitExit(WAIT)).isEqualTo(1);
      assertThat(watching.err().lines().toList())
          .singleElement()
          .asString()
          .startsWith("veil admin: the stream of changes ended (UNAVAILABLE: ")
          .endsWith("rerun with --resume-token " + last);
    }
  }

  @Test
  void watch_refusals_exit1_withTheStatus() throws Exception {
    CliRun created =
        CliRun.of(
            admin(
                    adminKey,
                    "client",
                    "create",
                    "--name",
                    "auditor",
                    "--roles",
                    "AUDIT_READER",
                    "--key-only")
                .toArray(String[]::new));
    assertThat(created.exitCode()).as(created.err()).isZero();
    String auditor = created.out().strip();

    try (CliStream badToken = watch("--resume-token", "not-a-token");
        CliStream denied =
            CliStream.start(admin(auditor, "deduction", "watch").toArray(String[]::new))) {
      assertThat(badToken.awaitExit(WAIT)).isEqualTo(1);
      assertThat(badToken.err())
          .startsWith("veil admin: the server refused: INVALID_ARGUMENT: ")
          .contains("resume_token");
      assertThat(badToken.lines()).isEmpty();
      assertThat(denied.awaitExit(WAIT)).isEqualTo(1);
      assertThat(denied.err())
          .startsWith("veil admin: the server refused: PERMISSION_DENIED: ")
          .contains("DEDUCTION_READER");
    }
  }

  @Test
  void badStatusesTimesAndVersions_areUsageErrors() {
    for (String[] args :
        List.of(
            new String[] {"list", "--status", "OPEN"},
            new String[] {"list", "--status", "1"},
            new String[] {"list", "--pay-method-id", "x"},
            new String[] {"list", "--created-from", "yesterday"},
            new String[] {"list", "--created-before", "2026-13-01"},
            new String[] {"list", "--created-before", "1970-01-01T00:00:00Z"},
            new String[] {"create", "--title", "t", "--valid-until", "2026-03-01 12:00"},
            new String[] {"open", "1", "--valid-until", "soon"},
            new String[] {"open", "1", "--expected-version", "-1"},
            new String[] {"close", "1", "--expected-version", "v2"},
            new String[] {"history"},
            new String[] {"history", "x"},
            new String[] {"watch", "extra"})) {
      CliRun run = deduction(args);

      assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.err()).doesNotContain("\tat ");
    }
    assertThat(deduction("list", "--status", "OPEN").err())
        .contains("'OPEN' is not a status: NORMAL or EXPIRED");
    assertThat(deduction("list", "--created-from", "yesterday").err())
        .contains("'yesterday' is not a UTC date (2026-11-28) or time (2026-11-28T09:30:00Z)");
  }

  /**
   * In a JVM of its own with its output a pipe, as {@code veil admin deduction watch | program}:
   * each line reaches the reader as it happens; SIGTERM ends the command; and once the reader stops
   * reading, the command ends at its next line instead of watching for ever.
   */
  @Test
  void watch_inAProcessOfItsOwn_flushesEachLineToThePipe_andEndsOnSigtermOrAClosedPipe()
      throws Exception {
    assertOk(deduction("create", "--title", "first"));
    Process process = veil(admin(adminKey, "deduction", "watch"));
    try {
      BlockingQueue<String> lines = readLines(process);
      assertThat(lines.poll(60, TimeUnit.SECONDS)).contains(" CREATED id=1 title=\"first\" ");
      assertOk(deduction("create", "--title", "second"));
      assertThat(lines.poll(WAIT.toSeconds(), TimeUnit.SECONDS))
          .contains(" CREATED id=2 title=\"second\" ");

      process.destroy(); // SIGTERM

      assertThat(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isEqualTo(143); // 128 + SIGTERM, as the JVM exits on it
    } finally {
      process.destroyForcibly();
    }

    Process piped = veil(admin(adminKey, "deduction", "watch", "--json"));
    try {
      BufferedReader reader =
          new BufferedReader(new InputStreamReader(piped.getInputStream(), StandardCharsets.UTF_8));
      assertThat(parse(reader.readLine()).get("deduction").get("title").asText())
          .isEqualTo("first");
      reader.close(); // as `watch | head -1` does after its line

      // The next lines find the pipe closed; the command notices at its next flush.
      long deadline = System.nanoTime() + WAIT.toNanos();
      int created = 0;
      while (piped.isAlive() && System.nanoTime() < deadline) {
        assertOk(deduction("create", "--title", "more " + created++));
        piped.waitFor(100, TimeUnit.MILLISECONDS);
      }
      assertThat(piped.isAlive()).as("still watching after %s new records", created).isFalse();
      assertThat(piped.exitValue()).isZero();
    } finally {
      piped.destroyForcibly();
    }
  }

  private Process veil(List<String> args) throws IOException {
    return new ProcessBuilder(ServerProcess.cliCommand(List.of(), args))
        .directory(dir.toFile())
        .redirectError(dir.resolve("err.txt").toFile())
        .start();
  }

  /** The lines {@code process} prints on stdout, as they arrive. */
  private static BlockingQueue<String> readLines(Process process) {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  lines.add(line);
                }
              } catch (IOException ended) {
                // the process is gone
              }
            },
            "watch-output");
    reader.setDaemon(true);
    reader.start();
    return lines;
  }
}
