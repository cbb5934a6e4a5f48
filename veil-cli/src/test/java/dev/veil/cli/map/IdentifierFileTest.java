package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.identity.IdentityInput;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.IdentifierBatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdentifierFileTest {
  private static final String HASH = "tMmiiTI7IaAcPpQPFQ65uMVCWH8av9jw4cwf/F5HVRQ=";

  @TempDir Path dir;

  private List<Identifier> read(String content, IdentityInput type, String column, long skip)
      throws IOException {
    Path file = dir.resolve("in.csv");
    Files.writeString(file, content);
    List<Identifier> all = new ArrayList<>();
    new IdentifierFile(file, type, column).read(skip, 2, (chunk, lines) -> all.addAll(list(chunk)));
    return all;
  }

  private static List<Identifier> list(IdentifierBatch batch) {
    List<Identifier> ids = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      ids.add(batch.get(i));
    }
    return ids;
  }

  @Test
  void onePerLine_kindsGuessedPerValue_blankLinesSkipped() throws IOException {
    assertThat(read("a@example.com\n\n+12025550123\n" + HASH + "\n", null, null, 0))
        .containsExactly(
            Identifier.email("a@example.com"),
            Identifier.phone("+12025550123"),
            Identifier.emailHash(HASH));
  }

  @Test
  void csvHeader_choosesTheColumnAndItsKind_quotedFieldsKeepTheirCommas() throws IOException {
    String csv =
        "\uFEFFname,phone_hash,note\n\"Doe, Jane\","
            + HASH
            + ",x\nBob,\""
            + HASH
            + "\",\"say \"\"hi\"\"\"\n";

    assertThat(read(csv, null, null, 0))
        .containsExactly(Identifier.phoneHash(HASH), Identifier.phoneHash(HASH));
  }

  @Test
  void column_byNameOrNumber_andTypeOverridesTheGuess() throws IOException {
    assertThat(read("id,contact\n1,a@example.com\n", null, "contact", 0))
        .containsExactly(Identifier.email("a@example.com"));
    assertThat(read("1,a@example.com\n2,b@example.com\n", null, "2", 0))
        .containsExactly(Identifier.email("a@example.com"), Identifier.email("b@example.com"));
    assertThat(read(HASH + "\n", IdentityInput.PHONE_HASH, null, 0))
        .containsExactly(Identifier.phoneHash(HASH));
    assertThatThrownBy(() -> read("id,contact\n", null, "mail", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void column_neitherANumberNorAName_isAClearError() {
    // Ten digits or more are no column number (it would not fit an int): a name, which is missing.
    assertThatThrownBy(() -> read("1,a@example.com\n", null, "99999999999", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("99999999999");
    assertThatThrownBy(() -> read("1,a@example.com\n", null, "", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void skip_resumesAfterTheGivenLine_andPositionsAreLineNumbers() throws IOException {
    Path file = dir.resolve("in.txt");
    Files.writeString(file, "email\na@x.com\nb@x.com\n\nc@x.com\nd@x.com\n");
    List<Long> positions = new ArrayList<>();
    List<Identifier> all = new ArrayList<>();

    long lines =
        new IdentifierFile(file, null, null)
            .read(
                3,
                2,
                (chunk, position) -> {
                  all.addAll(list(chunk));
                  positions.add(position);
                });

    assertThat(all).containsExactly(Identifier.email("c@x.com"), Identifier.email("d@x.com"));
    assertThat(positions).containsExactly(6L);
    assertThat(lines).isEqualTo(6);
  }

  @Test
  void quotedFieldWithLineBreaks_belongsToItsRecord_andNoLineOfItIsReadAsOne() throws IOException {
    // A note column with line breaks (RFC 4180): its second lines hold addresses that are not in
    // the column.
    String csv =
        "email,name,note\r\n\"a@x.com\",\"Doe, Jane\",\"line 1\r\nb@x.com\r\n\"\"c@x.com\"\"\"\r\n"
            + "d@x.com,x,\"e@x.com\ne@x.com\"\nf@x.com,O\"Brien,\"\"\n";

    assertThat(read(csv, null, null, 0))
        .containsExactly(
            Identifier.email("a@x.com"), Identifier.email("d@x.com"), Identifier.email("f@x.com"));
    assertThat(
            read(
                "\"a@x.com\nb@x.com\",x\nc@x.com\n",
                null,
                null,
                0)) // no header: the first record spans two lines
        .containsExactly(Identifier.email("a@x.com\nb@x.com"), Identifier.email("c@x.com"));
  }

  @Test
  void quotedFieldWithLineBreaks_positionsAreTheLinesOfWholeRecords_andAResumeSkipsThem()
      throws IOException {
    Path file = dir.resolve("notes.csv");
    Files.writeString(file, "email,note\na@x.com,\"1\n2\n3\"\nb@x.com,\"4\n5\"\nc@x.com,6\n");
    List<Long> positions = new ArrayList<>();
    List<Identifier> all = new ArrayList<>();

    long lines =
        new IdentifierFile(file, null, null)
            .read(
                0,
                1,
                (chunk, position) -> {
                  all.addAll(list(chunk));
                  positions.add(position);
                });
    List<Identifier> resumed = new ArrayList<>();
    new IdentifierFile(file, null, null)
        .read(4, 1, (chunk, position) -> resumed.addAll(list(chunk)));

    assertThat(all)
        .containsExactly(
            Identifier.email("a@x.com"), Identifier.email("b@x.com"), Identifier.email("c@x.com"));
    assertThat(positions).containsExactly(4L, 6L, 7L);
    assertThat(lines).isEqualTo(7);
    assertThat(resumed).containsExactly(Identifier.email("b@x.com"), Identifier.email("c@x.com"));
  }

  @Test
  void quotedFieldThatNeverEnds_isAnErrorWithItsLine_notTheRestOfTheFileSwallowed()
      throws IOException {
    Path file = dir.resolve("stray.csv");
    Files.writeString(file, "email,note\na@x.com,ok\nb@x.com,\"oops\nc@x.com,x\nd@x.com,y\n");

    assertThatThrownBy(
            () -> new IdentifierFile(file, null, null).read(0, 100, (chunk, position) -> {}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("line 3 opens a quoted field");

    Files.writeString(
        file, "b@x.com,\"" + "x\n".repeat(IdentifierFile.MAX_RECORD_CHARS / 2 + 1) + "\"\n");
    assertThatThrownBy(
            () -> new IdentifierFile(file, null, null).read(0, 100, (chunk, position) -> {}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("line 1 opens a quoted field");
  }

  @Test
  void aFileSeparatedBySemicolonsOrTabs_isRefusedWithAHint_notMappedLineByLine()
      throws IOException {
    // Read as one column, "a@x.com;42" is an address the server accepts: every line mapped,
    // wrongly.
    assertThatThrownBy(() -> read("Email;Name\na@x.com;42\n", null, null, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "it looks separated by ';', but veil map reads comma-separated values");
    assertThatThrownBy(() -> read("name\temail\nJo\ta@x.com\n", null, null, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("it looks separated by tabs");
    assertThatThrownBy(() -> read("name;contact\nJo;a@x.com\n", null, "contact", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no column named 'contact'")
        .hasMessageContaining("separated by ';'");
    assertThatThrownBy(() -> read("Jo;a@x.com\n", null, "2", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("separated by ';'");
    // A list of identifiers, or a CSV whose values hold semicolons, is read as ever.
    assertThat(read("a@x.com\nb;c@x.com\n", null, null, 0))
        .containsExactly(Identifier.email("a@x.com"), Identifier.email("b;c@x.com"));
    assertThat(read("email,note\na@x.com,x;y\n", null, null, 0))
        .containsExactly(Identifier.email("a@x.com"));
  }

  @Test
  void estimateLines_isTheSizeOverTheMeanLineLengthOfSamples() throws IOException {
    Path file = dir.resolve("estimate.txt");
    Files.writeString(file, "a@example.com\n".repeat(100_000)); // 14 bytes a line, 1.4 MB
    Path crOnly = dir.resolve("cr.txt");
    Files.writeString(crOnly, "a@b.c\rd@e.f\r");
    Path empty = dir.resolve("empty.txt");
    Files.writeString(empty, "");
    Path crlf = dir.resolve("crlf.txt");
    Files.writeString(crlf, "a@b.c\r\nd@e.f\r\n");
    Path mixed = dir.resolve("mixed.txt");
    Files.writeString(
        mixed, "x@y.z\r\nlonger.than.eight@bytes.example\ry@z.x\nno-end-of-line@x.y\r");

    assertThat(new IdentifierFile(file, null, null).estimateLines()).isBetween(99_000L, 101_000L);
    assertThat(new IdentifierFile(crOnly, null, null).estimateLines()).isEqualTo(2);
    assertThat(new IdentifierFile(empty, null, null).estimateLines()).isZero();
    assertThat(new IdentifierFile(crlf, null, null).estimateLines())
        .isEqualTo(2); // CR LF is one end
    assertThat(new IdentifierFile(mixed, null, null).estimateLines()).isEqualTo(4);
  }

  @Test
  void estimateLines_samplesTheMiddleAndEnd_whereNumberedLinesAreLonger() throws IOException {
    Path file = dir.resolve("numbered.txt");
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 200_000; i++) {
      text.append("user")
          .append(i)
          .append('.')
          .append(i * 7919L % 1_000_003)
          .append("@example")
          .append(i % 97)
          .append(".com\n");
    }
    Files.writeString(file, text);

    // The first 64 KiB alone (shorter lines) gave about 10 % too many.
    assertThat(new IdentifierFile(file, null, null).estimateLines()).isBetween(190_000L, 210_000L);
  }

  /**
   * Lines of ASCII without quotes are read from their bytes, others as text through {@link Csv}:
   * whatever the line, the identifiers must be those of the text reading (the oracle below, which
   * is how every line was read before the bytes path).
   */
  @Property(tries = 300)
  void everyLine_givesTheIdentifiersOfItsTextReading(
      @ForAll("lines") List<String> lines, @ForAll @IntRange(min = 1, max = 3) int column)
      throws IOException {
    Path file = Files.createTempFile("lines", ".csv");
    try {
      // A first line as wide as the widest column asked for (a narrower one is refused); the rows
      // after it may have fewer columns.
      String first = "x,y,z";
      Files.writeString(file, first + "\n" + String.join("\n", lines) + "\n");
      List<Identifier> read = new ArrayList<>();
      IdentifierFile identifiers = new IdentifierFile(file, null, Integer.toString(column));
      identifiers.read(0, 7, (chunk, n) -> read.addAll(list(chunk)));

      List<Identifier> expected = new ArrayList<>();
      long withoutValue = 0;
      for (String line : (first + "\n" + String.join("\n", lines)).split("\n", -1)) {
        List<String> fields = Csv.fields(line);
        String value = column - 1 < fields.size() ? fields.get(column - 1).strip() : "";
        if (!value.isEmpty()) {
          expected.add(Identifier.of(IdentifierFile.guess(value), value));
        } else {
          withoutValue++;
        }
      }
      assertThat(read).containsExactlyElementsOf(expected);
      assertThat(identifiers.linesWithoutValue()).isEqualTo(withoutValue);
    } finally {
      Files.delete(file);
    }
  }

  @Provide
  Arbitrary<List<String>> lines() {
    Arbitrary<String> value =
        Arbitraries.oneOf(
            Arbitraries.strings().withChars("aZ09@+./=_- \t\u000B\u001C\u001F").ofMaxLength(12),
            Arbitraries.of(
                HASH,
                HASH.substring(1),
                "+12025550123",
                "a".repeat(64),
                "a@b.c",
                "é@x.org",
                "\"a,b\"@x",
                " \u2003a@x.org\u2003",
                "a\"b",
                ""));
    Arbitrary<String> line =
        value.list().ofMinSize(1).ofMaxSize(4).map(fields -> String.join(",", fields));
    return line.list().ofMaxSize(20);
  }
}
