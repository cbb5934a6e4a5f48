package dev.veil.cli.admin;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain-text table: left-aligned columns two spaces apart, sized to their widest cell. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table(String... headers) {
    rows.add(headers);
  }

  Table row(Object... cells) {
    if (cells.length != rows.get(0).length) {
      throw new IllegalArgumentException("expected " + rows.get(0).length + " cells, got " + cells.length);
    }
    rows.add(Arrays.stream(cells).map(String::valueOf).toArray(String[]::new));
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
}
