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
    assertThat(Table.printable("\u200B\u2066x\u2069\uFEFF")).isEqualTo("\\u200B\\u2066x\\u2069\\uFEFF");
    assertThat(Table.printable("\u0000\u001B[2J\u007F\u0085")).isEqualTo("\\u0000\\u001B[2J\\u007F\\u0085");
    assertThat(Table.printable("a\u2028b\u2029")).isEqualTo("a\\u2028b\\u2029");
    assertThat(Table.printable("tag\uDB40\uDC01")).isEqualTo("tag\\uDB40\\uDC01");
    assertThat(Table.printable("lone\uD800")).isEqualTo("lone\\uD800");
  }

  @Test
  void printable_leavesVisibleTextAsItIs() {
    for (String text : new String[] {"", "Gym membership", "caf\u00e9", "\u6708\u4F1A\u8CBB", "\uD83D\uDE00",
        "a\u00a0b", "back\\slash"}) {
      assertThat(Table.printable(text)).isSameAs(text);
    }
  }

  @Test
  void print_keepsEveryRowOnOneLine_withItsColumnsInOrder() {
    StringWriter out = new StringWriter();

    new Table("ID", "NAME", "SITE").row(1, "evil\u202Eeman", 7).row(2, "two\nlines", 8).print(new PrintWriter(out));

    assertThat(out.toString()).doesNotContain("\u202E").hasLineCount(3);
    assertThat(out.toString().lines().toList().get(1)).isEqualTo("1   evil\\u202Eeman  7");
    assertThat(out.toString().lines().toList().get(2)).isEqualTo("2   two\\nlines      8");
  }
}
