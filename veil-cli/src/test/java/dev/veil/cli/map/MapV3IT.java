package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.client.ClientService.CreatedClient;
import dev.veil.client.Role;
import dev.veil.http.testing.TestNode;
import dev.veil.testing.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code veil map} over v3 (with the client's secret) against a real node on the embedded store:
 * the output has v3's columns and the node's own v1 advertising ids, and {@code --refresh} removes
 * an identity that opted out after it was mapped although no bucket rotated and no refresh time
 * passed (found through {@code POST /v2/optout/status}).
 */
class MapV3IT {
  private static final int EMAILS = 40;

  @TempDir Path dir;
  private TestNode node;
  private CreatedClient mapper;
  private String optOutKey;

  @BeforeEach
  void start() {
    node = TestNode.start();
    node.clock().set(Instant.now().truncatedTo(ChronoUnit.MILLIS)); // envelopes carry real time
    mapper = node.newClient(Role.MAPPER);
    optOutKey = node.newApiKey(Role.OPTOUT);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private CliRun map(String... args) {
    List<String> all = new ArrayList<>(List.of("map"));
    all.addAll(List.of(args));
    all.addAll(
        List.of(
            "--url",
            "http://127.0.0.1:" + node.port(),
            "--api-key",
            mapper.key().reveal(),
            "--client-secret",
            mapper.client().secret().reveal(),
            "--progress",
            "lines"));
    return CliRun.of(all.toArray(String[]::new));
  }

  private String v1AdvertisingId(String email) {
    return node.post("/v1/identity/map", mapper.key().reveal(), "{\"email\":[\"" + email + "\"]}")
        .bodyNode()
        .path("mapped")
        .get(0)
        .path("advertising_id")
        .asText();
  }

  @Test
  void refresh_removesAnIdentityOptedOutAfterMapping_thoughItsBucketDidNotRotate()
      throws IOException {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < EMAILS; i++) {
      text.append("member").append(i).append("@example.com\n");
    }
    Path in = Files.writeString(dir.resolve("members.txt"), text);
    Path out = dir.resolve("members.csv");

    CliRun imported = map("--in", in.toString(), "--out", out.toString());

    assertThat(imported.exitCode()).as(imported.err()).isZero();
    List<String> before = Files.readAllLines(out);
    assertThat(before.get(0))
        .isEqualTo("identifier,advertising_id,previous_advertising_id,refresh_from");
    assertThat(before).hasSize(1 + EMAILS);
    long now = Instant.now().getEpochSecond();
    for (int i = 0; i < EMAILS; i++) {
      String[] row = before.get(1 + i).split(",", -1);
      assertThat(row[0]).isEqualTo("member" + i + "@example.com");
      assertThat(row[1]).isEqualTo(v1AdvertisingId(row[0]));
      assertThat(row[2]).as("no rotation, no previous id").isEmpty();
      assertThat(Long.parseLong(row[3])).as("refresh_from in the future").isGreaterThan(now);
    }

    String leaving = "member7@example.com";
    assertThat(node.post("/v1/optout", optOutKey, "{\"email\":\"" + leaving + "\"}").status())
        .isEqualTo("success");

    CliRun refreshed = map("--refresh", "--out", out.toString());

    assertThat(refreshed.exitCode()).as(refreshed.err()).isZero();
    assertThat(refreshed.err())
        .contains("0 entries were due for refresh")
        .contains("re-mapped 0")
        .contains("removed 1 opted out")
        .contains("wrote 39 rows");
    List<String> after = Files.readAllLines(out);
    List<String> expected = new ArrayList<>(before);
    expected.remove(1 + 7);
    assertThat(after).as("every other row as it was").containsExactlyElementsOf(expected);
    assertThat(Files.readAllLines(Path.of(out + ".rejected.csv")))
        .containsExactly("identifier,reason", leaving + ",optout");
  }
}
