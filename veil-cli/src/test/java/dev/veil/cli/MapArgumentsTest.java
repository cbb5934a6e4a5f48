package dev.veil.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.veil.cli.map.MapArguments;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code veil map}'s own reading of plain command lines against picocli's reading of the same. */
class MapArgumentsTest {
  @Test
  void theUsualCommandLines_areReadWithoutPicocli_asPicocliReadsThem() {
    List<List<String>> lines =
        List.of(
            List.of("--in", "emails.txt", "--out", "mapped.csv"),
            List.of(
                "--in=emails.txt", "--out=mapped.csv", "--url", "http://h:1", "--api-key", "k=="),
            List.of("--refresh", "--out", "m.csv", "--progress", "lines", "--batch-size", "20"),
            List.of(
                "--in",
                "a b.csv",
                "--cache",
                "c.veil-cache",
                "--type",
                "EMAIL",
                "--column",
                "2",
                "--hash-locally",
                "--client-secret",
                "c2VjcmV0"),
            List.of());
    for (List<String> line : lines) {
      MapArguments.Parsed own = MapArguments.parse(line);

      assertThat(own).as("%s", line).isNotNull();
      assertSameAsPicocli(line, own);
    }
  }

  @Test
  void anythingElse_isLeftToPicocli() {
    List<List<String>> lines =
        List.of(
            List.of("--help"),
            List.of("-h"),
            List.of("--version"),
            List.of("--in"),
            List.of("--in", "--out", "x"),
            List.of("--in", "a", "--in", "b"),
            List.of("--batch-size", "0x10"),
            List.of("--batch-size", "-5"),
            List.of("--refresh=true"),
            List.of("--refresh", "--refresh"),
            List.of("extra"),
            List.of("@args.txt"),
            List.of("--in", "@file"),
            List.of("--in="),
            List.of("--inn", "x"),
            List.of("--in", "a\0b"));
    for (List<String> line : lines) {
      assertThat(MapArguments.parse(line)).as("%s", line).isNull();
    }
  }

  @Property(tries = 500)
  void wheneverItReadsALine_picocliReadsTheSame(@ForAll("commandLines") List<String> line) {
    MapArguments.Parsed own = MapArguments.parse(line);
    if (own != null) {
      assertSameAsPicocli(line, own);
    }
  }

  @Provide
  Arbitrary<List<String>> commandLines() {
    Arbitrary<String> word =
        Arbitraries.of(
            "--in",
            "--out",
            "--cache",
            "--type",
            "--column",
            "--batch-size",
            "--progress",
            "--url",
            "--api-key",
            "--refresh",
            "--hash-locally",
            "--client-secret",
            "x.csv",
            "email",
            "5000",
            "007",
            "lines",
            "--in=y",
            "--url=http://a:1/",
            "--api-key=a=b",
            "3",
            "-");
    return word.list().ofMaxSize(8);
  }

  private static void assertSameAsPicocli(List<String> line, MapArguments.Parsed own) {
    MapCommand command = new MapCommand();
    new CommandLine(command).parseArgs(line.toArray(String[]::new));

    assertThat(own.settings()).as("%s", line).isEqualTo(command.settings());
    assertThat(own.server().given()).as("%s", line).isEqualTo(command.server().given());
  }
}
