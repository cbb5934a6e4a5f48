package dev.veil.cli.admin;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table: left-aligned columns two spaces apart, sized to their widest cell as a
 * terminal shows it ({@linkplain #columns columns}, not UTF-16 units). Cells hold what the server
 * sent (client names, deduction titles), so each is printed {@linkplain #printable printable}: one
 * line, with nothing a terminal would act on or hide.
 */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table(String... headers) {
    rows.add(headers);
  }

  Table row(Object... cells) {
    if (cells.length != rows.get(0).length) {
      throw new IllegalArgumentException(
          "expected " + rows.get(0).length + " cells, got " + cells.length);
    }
    rows.add(Arrays.stream(cells).map(c -> printable(String.valueOf(c))).toArray(String[]::new));
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], columns(row[i]));
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(row[i]);
        if (i < row.length - 1) {
          line.append(" ".repeat(widths[i] - columns(row[i]) + 2));
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
    text.codePoints()
        .forEach(
            cp -> {
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

  /**
   * How many terminal columns a {@linkplain #printable printable} {@code text} takes: a combining
   * mark (Mn, Me: accents, the emoji variation selector U+FE0F) none, a wide character (East Asian
   * wide and fullwidth: CJK, Hangul, kana, fullwidth forms; emoji pictographs) two, anything else
   * one. The same rule as the C library's {@code wcwidth} for the characters names and titles use;
   * a terminal with other fonts may differ for rarer ones.
   */
  static int columns(String text) {
    int columns = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      int type = Character.getType(cp);
      if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK) {
        continue;
      }
      columns += isWide(cp) ? 2 : 1;
    }
    return columns;
  }

  private static boolean isWide(int cp) {
    return (cp >= 0x1100 && cp <= 0x115F) // Hangul leading consonants
        || (cp >= 0x231A && cp <= 0x231B)
        || (cp >= 0x23E9 && cp <= 0x23EC)
        || cp == 0x23F0
        || cp == 0x23F3
        || (cp >= 0x25FD && cp <= 0x25FE)
        || (cp >= 0x2614 && cp <= 0x2615)
        || (cp >= 0x2648 && cp <= 0x2653)
        || cp == 0x267F
        || cp == 0x2693
        || cp == 0x26A1
        || (cp >= 0x26AA && cp <= 0x26AB)
        || (cp >= 0x26BD && cp <= 0x26BE)
        || (cp >= 0x26C4 && cp <= 0x26C5)
        || cp == 0x26CE
        || cp == 0x26D4
        || cp == 0x26EA
        || (cp >= 0x26F2 && cp <= 0x26F3)
        || cp == 0x26F5
        || cp == 0x26FA
        || cp == 0x26FD
        || cp == 0x2705
        || (cp >= 0x270A && cp <= 0x270B)
        || cp == 0x2728
        || cp == 0x274C
        || cp == 0x274E
        || (cp >= 0x2753 && cp <= 0x2755)
        || cp == 0x2757
        || (cp >= 0x2795 && cp <= 0x2797)
        || cp == 0x27B0
        || cp == 0x27BF
        || (cp >= 0x2B1B && cp <= 0x2B1C)
        || cp == 0x2B50
        || cp == 0x2B55 // emoji shown wide
        || (cp >= 0x2E80 && cp <= 0x303E) // CJK radicals, punctuation
        || (cp >= 0x3041 && cp <= 0x33FF) // kana, CJK compatibility
        || (cp >= 0x3400 && cp <= 0x4DBF)
        || (cp >= 0x4E00 && cp <= 0x9FFF) // CJK ideographs
        || (cp >= 0xA000 && cp <= 0xA4CF) // Yi
        || (cp >= 0xA960 && cp <= 0xA97F)
        || (cp >= 0xAC00 && cp <= 0xD7A3) // Hangul
        || (cp >= 0xF900 && cp <= 0xFAFF) // CJK compatibility ideographs
        || (cp >= 0xFE10 && cp <= 0xFE19)
        || (cp >= 0xFE30 && cp <= 0xFE6F) // vertical and small forms
        || (cp >= 0xFF00 && cp <= 0xFF60)
        || (cp >= 0xFFE0 && cp <= 0xFFE6) // fullwidth forms
        || (cp >= 0x16FE0 && cp <= 0x18CFF)
        || (cp >= 0x1B000 && cp <= 0x1B2FF) // Tangut, kana supplements
        || cp == 0x1F004
        || cp == 0x1F0CF
        || cp == 0x1F18E
        || (cp >= 0x1F191 && cp <= 0x1F19A)
        || (cp >= 0x1F200 && cp <= 0x1F251) // enclosed ideographs
        || (cp >= 0x1F300 && cp <= 0x1F64F) // pictographs, emoticons
        || (cp >= 0x1F680 && cp <= 0x1F6FF) // transport and map symbols
        || (cp >= 0x1F7E0 && cp <= 0x1F7EB)
        || (cp >= 0x1F90C && cp <= 0x1F9FF)
        || (cp >= 0x1FA70 && cp <= 0x1FAFF)
        || (cp >= 0x20000 && cp <= 0x3FFFD); // CJK extensions
  }

  private static boolean isEscaped(int cp) {
    return switch (Character.getType(cp)) {
      case Character.CONTROL,
          Character.FORMAT,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR,
          Character.SURROGATE ->
          true;
      default -> false;
    };
  }
}
