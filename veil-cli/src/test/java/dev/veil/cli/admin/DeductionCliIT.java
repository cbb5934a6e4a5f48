package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.audit.AuditLog;
import dev.veil.deduction.Deduction;
import dev.veil.deduction.DeductionService;
import dev.veil.deduction.DeductionStatus;
import dev.veil.server.VeilServer;
import dev.veil.testing.CliRun;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.TestConfigs;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code veil admin deduction ...} in-process against a real server on a loopback port. */
class DeductionCliIT {
  private final InMemoryStores stores = new InMemoryStores();
  private final VeilServer server =
      VeilServer.start(TestConfigs.config(), MutableClock.at("2026-03-01T12:00:00Z"), stores);
  private final String adminKey = server.bootstrapAdminKey().orElseThrow();
  private final ObjectMapper json = new ObjectMapper();

  @AfterEach
  void stop() {
    server.close();
  }

  private CliRun deduction(String... args) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "admin",
                "--port",
                String.valueOf(server.grpcPort()),
                "--key",
                adminKey,
                "deduction"));
    all.addAll(List.of(args));
    return CliRun.of(all.toArray(String[]::new));
  }

  private static void assertOk(CliRun run) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isZero();
    assertThat(run.err()).isEmpty();
  }

  private JsonNode parse(CliRun run) throws IOException {
    return json.readTree(run.out());
  }

  @Test
  void create_printsTheNewRecordAsATable() {
    CliRun run =
        deduction(
            "create",
            "--title",
            "Gym membership",
            "--desc",
            "monthly\nfirst day",
            "--pay-method-id",
            "4294967295");

    assertOk(run);
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("ID")
        .contains("TITLE", "STATUS", "PAY METHOD", "CREATED", "UPDATED", "DESC");
    assertThat(lines.get(1))
        .startsWith("1 ")
        .contains(
            "Gym membership", "NORMAL", "4294967295", "2026-03-01T12:00:00Z", "monthly first day");
  }

  @Test
  void get_printsOneRecordWhateverItsStatus_andAnUnknownIdIsRefused() {
    assertOk(deduction("create", "--title", "Gym membership"));
    assertOk(deduction("close", "1"));

    CliRun got = deduction("get", "1");
    assertOk(got);
    assertThat(got.out()).contains("Gym membership").contains("EXPIRED");
    CliRun missing = deduction("get", "2");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).contains("record not found");
  }

  @Test
  void tables_escapeFormatCharacters_whileJsonKeepsThemExact() throws IOException {
    String title = "Gym \u202Eylhtnom";
    String desc = "first\u200B day\u2066";

    CliRun created = deduction("create", "--title", title, "--desc", desc);
    CliRun listed = deduction("list");
    JsonNode json = parse(deduction("list", "--json")).get("data").get(0);

    assertOk(created);
    assertOk(listed);
    for (CliRun run : List.of(created, listed)) {
      assertThat(run.out())
          .doesNotContain("\u202E", "\u200B", "\u2066")
          .contains("Gym \\u202Eylhtnom", "first\\u200B day\\u2066");
      assertThat(run.out().lines().toList().get(1))
          .startsWith("1 ")
          .endsWith("first\\u200B day\\u2066");
    }
    assertThat(json.get("title").asText()).isEqualTo(title);
    assertThat(json.get("desc").asText()).isEqualTo(desc);
  }

  @Test
  void create_withJson_printsTheResponse() throws IOException {
    JsonNode response =
        parse(deduction("create", "--title", "Gym", "--request-id", "r-1", "--json"));

    assertThat(response.get("success").asBoolean()).isTrue();
    assertThat(response.get("code").asInt()).isZero();
    assertThat(response.get("message").asText()).isEqualTo("success");
    JsonNode record = response.get("data").get(0);
    assertThat(record.get("id").asLong()).isEqualTo(1);
    assertThat(record.get("title").asText()).isEqualTo("Gym");
    assertThat(record.get("status").asInt()).isZero();
    assertThat(record.get("created_ms").asLong()).isPositive();
    assertThat(
            parse(deduction("create", "--title", "Gym", "--request-id", "r-1", "--json"))
                .get("data")
                .get(0)
                .get("id")
                .asLong())
        .isEqualTo(1);
  }

  @Test
  void closeOpenAndTheTwoLists() throws IOException {
    deduction("create", "--title", "first");
    deduction("create", "--title", "second");

    CliRun closed = deduction("close", "1");
    assertOk(closed);
    assertThat(closed.out()).contains("EXPIRED").contains("first");

    CliRun normal = deduction("list");
    CliRun expired = deduction("expired");
    assertOk(normal);
    assertThat(normal.out()).contains("second").doesNotContain("first");
    assertThat(expired.out()).contains("first").doesNotContain("second");

    assertOk(deduction("open", "1"));
    JsonNode list = parse(deduction("list", "--json"));
    assertThat(list.get("data")).hasSize(2);
    assertThat(parse(deduction("expired", "--json")).get("data")).isEmpty();
    assertThat(deduction("expired").out()).contains("No deductions.");
  }

  @Test
  void list_withPageSize_printsTheTokenOfTheNextPage() throws IOException {
    for (int i = 0; i < 3; i++) {
      deduction("create", "--title", "d" + i);
    }

    CliRun first = deduction("list", "--page-size", "2");
    assertOk(first);
    assertThat(first.out()).contains("d0", "d1").doesNotContain("d2").contains("--page-token ");
    String token =
        parse(deduction("list", "--page-size", "2", "--json")).get("next_page_token").asText();

    CliRun second = deduction("list", "--page-size", "2", "--page-token", token);
    assertThat(second.out()).contains("d2").doesNotContain("d0").doesNotContain("--page-token");
  }

  /**
   * 2,500 records "d1" to "d2500" whose descriptions take 2,048 bytes each: more than 4 MiB in all.
   */
  private String createMoreThanOneMessageCanHold() {
    MutableClock clock = MutableClock.at("2026-03-01T12:00:00Z");
    DeductionService service =
        new DeductionService(stores.deductions(), new AuditLog(stores.audit(), clock), clock);
    String desc = "\u00e9".repeat(Deduction.MAX_DESC_LENGTH);
    for (int i = 1; i <= 2_500; i++) {
      service.create("d" + i, desc, 0, "");
    }
    return desc;
  }

  @Test
  void list_ofMoreThanOneMessageCanHold_pagesThroughEverything() throws IOException {
    String desc = createMoreThanOneMessageCanHold();

    CliRun table = deduction("list");
    CliRun asJson = deduction("list", "--json");

    assertOk(table);
    List<String> lines = table.out().lines().toList();
    assertThat(lines).hasSize(2_501);
    assertThat(lines.get(1)).startsWith("1 ");
    assertThat(lines.get(2_500)).startsWith("2500 ");
    assertOk(asJson);
    JsonNode response = parse(asJson);
    assertThat(response.get("code").asInt()).isZero();
    assertThat(response.get("next_page_token").asText()).isEmpty();
    assertThat(response.get("data")).hasSize(2_500);
    for (int i = 0; i < 2_500; i++) {
      assertThat(response.get("data").get(i).get("id").asInt()).isEqualTo(i + 1);
    }
    assertThat(response.get("data").get(2_499).get("desc").asText()).isEqualTo(desc);
  }

  @Test
  void expired_ofMoreThanOneMessageCanHold_pagesThroughEverything() throws IOException {
    createMoreThanOneMessageCanHold();
    for (int id = 1; id <= 2_500; id += 2) {
      stores
          .deductions()
          .setStatus(id, DeductionStatus.EXPIRED, Instant.parse("2026-03-01T12:00:00Z"));
    }

    JsonNode expired = parse(deduction("expired", "--json")).get("data");
    CliRun normal = deduction("list");

    assertThat(expired).hasSize(1_250);
    assertThat(expired.get(1_249).get("id").asInt()).isEqualTo(2_499);
    assertOk(normal);
    assertThat(normal.out().lines()).hasSize(1_251);
  }

  @Test
  void list_withAPageTooLargeForOneMessage_exits1_pointingAtPageSize_withoutGrpcLogLines() {
    createMoreThanOneMessageCanHold();
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            logged.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger root = Logger.getLogger("");
    root.addHandler(capture);
    CliRun run;
    try {
      run = deduction("list", "--page-size", "2500");
    } finally {
      root.removeHandler(capture);
    }

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("veil admin: the server refused: RESOURCE_EXHAUSTED:")
        .contains("fewer records with --page-size");
    assertThat(run.err().lines()).hasSize(1);
    assertThat(logged)
        .extracting(LogRecord::getMessage)
        .doesNotContain("Received data on closed stream");
    assertThat(Logger.getLogger("io.grpc.internal.AbstractClientStream").isLoggable(Level.INFO))
        .isFalse();
  }

  @Test
  void aNonZeroCode_exits1_withCodeAndMessageOnStderr() throws IOException {
    CliRun unknown = deduction("open", "42");
    CliRun zero = deduction("close", "0");
    CliRun blank = deduction("create", "--title", " ");
    CliRun invisible = deduction("create", "--title", "\u00a0\u200b\u202e");
    CliRun tooLong = deduction("create", "--title", "t".repeat(10_000));

    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("code 2: record not found");
    assertThat(unknown.out()).isEmpty();
    assertThat(zero.exitCode()).isEqualTo(1);
    assertThat(zero.err()).contains("code 2: record not found");
    assertThat(blank.err()).contains("code 4: invalid argument: title must not be blank");
    assertThat(invisible.err()).contains("code 4: invalid argument: title must not be blank");
    assertThat(tooLong.err())
        .contains("code 4: invalid argument: title must be at most 128 characters");

    CliRun asJson = deduction("open", "42", "--json");
    assertThat(asJson.exitCode()).isEqualTo(1);
    assertThat(parse(asJson).get("code").asInt()).isEqualTo(2);
    assertThat(parse(asJson).get("success").asBoolean(true)).isFalse();
  }

  @Test
  void storeOutage_exits1_withCode1() {
    stores.setDown(true);

    CliRun run = deduction("list");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("code 1: storage unavailable");
  }

  @Test
  void badNumbers_andMissingTitle_areUsageErrors() {
    for (String[] args :
        List.of(
            new String[] {"open", "abc"},
            new String[] {"close", "-1"},
            new String[] {"open", "4294967296"},
            new String[] {"create"},
            new String[] {"create", "--title", "t", "--pay-method-id", "x"},
            new String[] {"list", "--page-size", "-5"})) {
      CliRun run = deduction(args);

      assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.err()).doesNotContain("\tat ");
    }
  }

  @Test
  void wrongKey_exits1_withTheGrpcStatus() {
    CliRun run =
        CliRun.of(
            "admin",
            "--port",
            String.valueOf(server.grpcPort()),
            "--key",
            "vk1.AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "deduction",
            "list");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("UNAUTHENTICATED");
  }
}
