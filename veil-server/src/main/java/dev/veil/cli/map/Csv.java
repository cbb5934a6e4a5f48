package dev.veil.cli.map;

import java.util.ArrayList;
import java.util.List;

/**
 * The little CSV that {@code veil map} needs (RFC 4180 within one line): fields separated by
 * commas, optionally in double quotes, a doubled quote inside quotes standing for one. A line
 * without commas or quotes is one field, so a plain list of identifiers is a one-column CSV.
 */
final class Csv {
  private Csv() {}

  /** The fields of one line. */
  static List<String> fields(String line) {
    if (line.indexOf(',') < 0 && line.indexOf('"') < 0) {
      return List.of(line); // a plain list of identifiers: the common case, without copying
    }
    List<String> fields = new ArrayList<>(2);
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields;
  }

  /** {@code value} as a CSV field: quoted when it holds a comma, quote, CR or LF. */
  static String field(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ',' || c == '"' || c == '\n' || c == '\r') {
        return '"' + value.replace("\"", "\"\"") + '"';
      }
    }
    return value;
  }
}
