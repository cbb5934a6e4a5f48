package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.Identifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdentifierFileTest {
  private static final String HASH = "tMmiiTI7IaAcPpQPFQ65uMVCWH8av9jw4cwf/F5HVRQ=";

  @TempDir Path dir;

  private List<Identifier> read(String content, IdentityInput type, String column, long skip) throws IOException {
    Path file = dir.resolve("in.csv");
    Files.writeString(file, content);
    List<Identifier> all = new ArrayList<>();
    new IdentifierFile(file, type, column).read(skip, 2, (chunk, lines) -> all.addAll(chunk));
    return all;
  }

  @Test
  void onePerLine_kindsGuessedPerValue_blankLinesSkipped() throws IOException {
    assertThat(read("a@example.com\n\n+12025550123\n" + HASH + "\n", null, null, 0)).containsExactly(
        Identifier.email("a@example.com"), Identifier.phone("+12025550123"), Identifier.emailHash(HASH));
  }

  @Test
  void csvHeader_choosesTheColumnAndItsKind_quotedFieldsKeepTheirCommas() throws IOException {
    String csv = "\uFEFFname,phone_hash,note\n\"Doe, Jane\"," + HASH + ",x\nBob,\"" + HASH + "\",\"say \"\"hi\"\"\"\n";

    assertThat(read(csv, null, null, 0)).containsExactly(Identifier.phoneHash(HASH), Identifier.phoneHash(HASH));
  }

  @Test
  void column_byNameOrNumber_andTypeOverridesTheGuess() throws IOException {
    assertThat(read("id,contact\n1,a@example.com\n", null, "contact", 0))
        .containsExactly(Identifier.email("a@example.com"));
    assertThat(read("1,a@example.com\n2,b@example.com\n", null, "2", 0))
        .containsExactly(Identifier.email("a@example.com"), Identifier.email("b@example.com"));
    assertThat(read(HASH + "\n", IdentityInput.PHONE_HASH, null, 0)).containsExactly(Identifier.phoneHash(HASH));
    assertThatThrownBy(() -> read("id,contact\n", null, "mail", 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void skip_resumesAfterTheGivenLine_andPositionsAreLineNumbers() throws IOException {
    Path file = dir.resolve("in.txt");
    Files.writeString(file, "email\na@x.com\nb@x.com\n\nc@x.com\nd@x.com\n");
    List<Long> positions = new ArrayList<>();
    List<Identifier> all = new ArrayList<>();

    long lines = new IdentifierFile(file, null, null).read(3, 2, (chunk, position) -> {
      all.addAll(chunk);
      positions.add(position);
    });

    assertThat(all).containsExactly(Identifier.email("c@x.com"), Identifier.email("d@x.com"));
    assertThat(positions).containsExactly(6L);
    assertThat(lines).isEqualTo(6);
  }
}
