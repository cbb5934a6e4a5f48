package dev.veil.cli.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Tables print what the server sent without letting it move or hide the columns. */
class TableTest {
  @Test
  void printable_escapesControlFormatAndSeparatorCharacters() {
    assertThat(Table.printable("a\tb\r\nc")).isEqualTo("a\\tb\\r\\nc");
    assertThat(Table.printable("abc\u202Edef")).isEqualTo("abc\\u202Edef");
    assertThat(Table.printable("\u200B\u2066x\u2069\uFEFF"))
        .isEqualTo("\\u200B\\u2066x\\u2069\\uFEFF");
    assertThat(Table.printable("\u0000\u001B[2J\u007F\u0085"))
        .isEqualTo("\\u0000\\u001B[2J\\u007F\\u0085");
    assertThat(Table.printable("a\u2028b\u2029")).isEqualTo("a\\u2028b\\u2029");
    assertThat(Table.printable("tag\uDB40\uDC01")).isEqualTo("tag\\uDB40\\uDC01");
    assertThat(Table.printable("lone\uD800")).isEqualTo("lone\\uD800");
  }

  @Test
  void printable_leavesVisibleTextAsItIs() {
    for (String text :
        new String[] {
          "",
          "Gym membership",
          "caf\u00e9",
          "\u6708\u4F1A\u8CBB",
          "\uD83D\uDE00",
          "a\u00a0b",
          "back\\slash"
        }) {
      assertThat(Table.printable(text)).isSameAs(text);
    }
  }

  @Test
  void print_keepsEveryRowOnOneLine_withItsColumnsInOrder() {
    StringWriter out = new StringWriter();

    new Table("ID", "NAME", "SITE")
        .row(1, "evil\u202Eeman", 7)
        .row(2, "two\nlines", 8)
        .print(new PrintWriter(out));

    assertThat(out.toString()).doesNotContain("\u202E").hasLineCount(3);
    assertThat(out.toString().lines().toList().get(1)).isEqualTo("1   evil\\u202Eeman  7");
    assertThat(out.toString().lines().toList().get(2)).isEqualTo("2   two\\nlines      8");
  }

  @Test
  void columns_countWhatATerminalShows() {
    assertThat(Table.columns("Gym")).isEqualTo(3);
    assertThat(Table.columns("cafe\u0301")).isEqualTo(4); // e and a combining acute accent
    assertThat(Table.columns("\u6708\u4F1A\u8CBB")).isEqualTo(6); // CJK: two columns each
    assertThat(Table.columns("\uD83D\uDE00!"))
        .isEqualTo(3); // an emoji (two UTF-16 units), then "!"
    assertThat(Table.columns("\u2764\uFE0F"))
        .isEqualTo(1); // a text-style symbol; the selector takes none
    assertThat(Table.columns("\uFF21\uD55C")).isEqualTo(4); // fullwidth A, a Hangul syllable
  }

  @Test
  void print_alignsColumnsAfterWideAndCombiningCharacters() {
    StringWriter out = new StringWriter();

    new Table("NAME", "SITE")
        .row("\uD83D\uDE00\uD83D\uDE00", 1)
        .row("\u6708\u4F1A", 2)
        .row("cafe\u0301s", 3)
        .row("plain", 4)
        .print(new PrintWriter(out));

    // Every SITE value starts at the same terminal column: 5 columns of name, then two spaces.
    assertThat(out.toString().lines().toList())
        .containsExactly(
            "NAME   SITE",
            "\uD83D\uDE00\uD83D\uDE00   1",
            "\u6708\u4F1A   2",
            "cafe\u0301s  3",
            "plain  4");
  }
}
