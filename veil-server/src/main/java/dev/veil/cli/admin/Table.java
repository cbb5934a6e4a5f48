package dev.veil.cli.admin;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table: left-aligned columns two spaces apart, sized to their widest cell. Cells hold
 * what the server sent (client names, deduction titles), so each is printed {@linkplain #printable
 * printable}: one line, with nothing a terminal would act on or hide.
 */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table(String... headers) {
    rows.add(headers);
  }

  Table row(Object... cells) {
    if (cells.length != rows.get(0).length) {
      throw new IllegalArgumentException("expected " + rows.get(0).length + " cells, got " + cells.length);
    }
    rows.add(Arrays.stream(cells).map(c -> printable(String.valueOf(c))).toArray(String[]::new));
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(row[i]);
        if (i < row.length - 1) {
          line.append(" ".repeat(widths[i] - row[i].length() + 2));
        }
      }
      out.println(line);
    }
  }

  /**
   * {@code text} with the characters that would break a table row shown as escapes: tab, CR and LF
   * as {@code \t}, {@code \r}, {@code \n}; other control characters (Cc), format characters (Cf:
   * U+202E, for one, reverses what follows it, columns included; U+200B is invisible), line and
   * paragraph separators and unpaired surrogates as a backslash, {@code u} and the four hex digits
   * of each UTF-16 unit, as JSON writes them. Everything else is printed as it is.
   */
  static String printable(String text) {
    if (text.codePoints().noneMatch(Table::isEscaped)) {
      return text;
    }
    StringBuilder b = new StringBuilder(text.length() + 16);
    text.codePoints().forEach(cp -> {
      if (!isEscaped(cp)) {
        b.appendCodePoint(cp);
      } else if (cp == '\t' || cp == '\r' || cp == '\n') {
        b.append(cp == '\t' ? "\\t" : cp == '\r' ? "\\r" : "\\n");
      } else {
        for (char unit : Character.toChars(cp)) {
          b.append(String.format("\\u%04X", (int) unit));
        }
      }
    });
    return b.toString();
  }

  private static boolean isEscaped(int cp) {
    return switch (Character.getType(cp)) {
      case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
          Character.SURROGATE -> true;
      default -> false;
    };
  }
}
