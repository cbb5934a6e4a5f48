package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.veil.server.VeilServer;
import dev.veil.testing.CliRun;
import dev.veil.testing.InMemoryStores;
import dev.veil.testing.MutableClock;
import dev.veil.testing.TestConfigs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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
    List<String> all = new ArrayList<>(List.of("admin", "--port", String.valueOf(server.grpcPort()), "--key", adminKey,
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
    CliRun run = deduction("create", "--title", "Gym membership", "--desc", "monthly\nfirst day", "--pay-method-id",
        "4294967295");

    assertOk(run);
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).startsWith("ID").contains("TITLE", "STATUS", "PAY METHOD", "CREATED", "UPDATED", "DESC");
    assertThat(lines.get(1)).startsWith("1 ").contains("Gym membership", "NORMAL", "4294967295",
        "2026-03-01T12:00:00Z", "monthly first day");
  }

  @Test
  void create_withJson_printsTheResponse() throws IOException {
    JsonNode response = parse(deduction("create", "--title", "Gym", "--request-id", "r-1", "--json"));

    assertThat(response.get("success").asBoolean()).isTrue();
    assertThat(response.get("code").asInt()).isZero();
    assertThat(response.get("message").asText()).isEqualTo("success");
    JsonNode record = response.get("data").get(0);
    assertThat(record.get("id").asLong()).isEqualTo(1);
    assertThat(record.get("title").asText()).isEqualTo("Gym");
    assertThat(record.get("status").asInt()).isZero();
    assertThat(record.get("created_ms").asLong()).isPositive();
    assertThat(parse(deduction("create", "--title", "Gym", "--request-id", "r-1", "--json")).get("data").get(0)
        .get("id").asLong()).isEqualTo(1);
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
    String token = parse(deduction("list", "--page-size", "2", "--json")).get("next_page_token").asText();

    CliRun second = deduction("list", "--page-size", "2", "--page-token", token);
    assertThat(second.out()).contains("d2").doesNotContain("d0").doesNotContain("--page-token");
  }

  @Test
  void aNonZeroCode_exits1_withCodeAndMessageOnStderr() throws IOException {
    CliRun unknown = deduction("open", "42");
    CliRun zero = deduction("close", "0");
    CliRun blank = deduction("create", "--title", " ");
    CliRun tooLong = deduction("create", "--title", "t".repeat(10_000));

    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("code 2: record not found");
    assertThat(unknown.out()).isEmpty();
    assertThat(zero.exitCode()).isEqualTo(1);
    assertThat(zero.err()).contains("code 2: record not found");
    assertThat(blank.err()).contains("code 4: invalid argument: title must not be blank");
    assertThat(tooLong.err()).contains("code 4: invalid argument: title must be at most 128 characters");

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
    for (String[] args : List.of(new String[] {"open", "abc"}, new String[] {"close", "-1"},
        new String[] {"open", "4294967296"}, new String[] {"create"},
        new String[] {"create", "--title", "t", "--pay-method-id", "x"}, new String[] {"list", "--page-size", "-5"})) {
      CliRun run = deduction(args);

      assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.err()).doesNotContain("\tat ");
    }
  }

  @Test
  void wrongKey_exits1_withTheGrpcStatus() {
    CliRun run = CliRun.of("admin", "--port", String.valueOf(server.grpcPort()), "--key",
        "vk1.AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "deduction", "list");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("UNAUTHENTICATED");
  }
}
