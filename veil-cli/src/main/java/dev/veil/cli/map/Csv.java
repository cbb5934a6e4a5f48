package dev.veil.cli.map;

import java.util.ArrayList;
import java.util.List;

/**
 * The little CSV that {@code veil map} needs (RFC 4180): fields separated by commas, optionally in
 * double quotes, a doubled quote inside quotes standing for one. A quote opens a quoted field only
 * where the field begins (after blanks, if any), as in spreadsheets and Python's {@code csv}; one
 * later in a field ({@code O"Brien}) is a character of it. A quoted field may hold line breaks:
 * such a record spans several lines of the file ({@link #state}), which the reader joins with
 * {@code \n} before {@link #fields}. A line without commas or quotes is one field, so a plain list
 * of identifiers is a one-column CSV.
 */
final class Csv {
  /** {@link #state}: at the start of a field, or in one that holds only blanks so far. */
  static final int FIELD_START = 0;

  /** {@link #state}: in a field that is not (or no longer) inside quotes. */
  static final int UNQUOTED = 1;

  /** {@link #state}: inside a quoted field: a line that ends here goes on in the next line. */
  static final int QUOTED = 2;

  private Csv() {}

  /**
   * The fields of one record (a line, or lines joined with {@code \n} while a quoted field was
   * open).
   */
  static List<String> fields(String line) {
    if (line.indexOf(',') < 0 && line.indexOf('"') < 0) {
      return List.of(line); // a plain list of identifiers: the common case, without copying
    }
    List<String> fields = new ArrayList<>(2);
    StringBuilder field = new StringBuilder();
    int state = FIELD_START;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (state == QUOTED) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          state = UNQUOTED;
        } else {
          field.append(c);
        }
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
        state = FIELD_START;
      } else if (c == '"' && state == FIELD_START) {
        state = QUOTED;
      } else {
        field.append(c);
        state = state == FIELD_START && isBlank(c) ? FIELD_START : UNQUOTED;
      }
    }
    fields.add(field.toString());
    return fields;
  }

  /**
   * The state at the end of {@code text}, read from state {@code from} ({@link #FIELD_START} for a
   * record's first line, {@link #QUOTED} for a line that goes on a quoted field): {@link #QUOTED}
   * when a quoted field is still open, so that the record goes on in the next line. Reads each line
   * once, however many lines a record spans.
   */
  static int state(String text, int from) {
    int state = from;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (state == QUOTED) {
        if (c == '"') {
          if (i + 1 < text.length() && text.charAt(i + 1) == '"') {
            i++;
          } else {
            state = UNQUOTED;
          }
        }
      } else if (c == ',') {
        state = FIELD_START;
      } else if (c == '"' && state == FIELD_START) {
        state = QUOTED;
      } else if (state == FIELD_START && !isBlank(c)) {
        state = UNQUOTED;
      }
    }
    return state;
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t';
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
