package dev.veil.cli.map;

import dev.veil.core.identity.IdentityInput;
import dev.veil.core.text.ByteScan;
import dev.veil.sdk.Identifier;
import dev.veil.sdk.IdentifierBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads identifiers from a file: a CSV, or one identifier per line (a one-column CSV).
 *
 * <p>Column: {@code --column} by header name or 1-based number; otherwise the first column whose
 * header is {@code identifier}, {@code email}, {@code email_hash}, {@code phone}, {@code
 * phone_hash} or {@code hash}; otherwise the first column, and the first line is data. Kind: the
 * {@code --type} given; else the header's name when it is a kind; else, per value, {@code @} means
 * email, a leading {@code +} a phone, 44 base64 or 64 hex characters an email hash.
 *
 * <p>Lines without a value in the column (blank lines, rows without that column or with it empty)
 * are skipped but counted ({@link #linesWithoutValue()}): positions are line numbers, so that a
 * resumed import skips exactly the lines an earlier run added.
 */
final class IdentifierFile {
  /** Longest record that spans several lines (a quoted field with line breaks), in characters. */
  static final int MAX_RECORD_CHARS = 1 << 20;

  private static final List<String> HEADER_ORDER =
      List.of("identifier", "email", "email_hash", "phone", "phone_hash", "hash");
  private static final Set<String> HEADERS = Set.copyOf(HEADER_ORDER);

  /**
   * Receives identifiers in chunks, with the number of lines read once the chunk is added. The
   * chunk is reused for the next identifiers once this returns.
   */
  interface ChunkSink {
    void accept(IdentifierBatch chunk, long linesRead) throws IOException;
  }

  private final Path file;
  private final IdentityInput type;
  private final String column;
  private long withoutValue;

  /**
   * @param type every value's kind, or null to take it from the header or the value
   * @param column a header name or 1-based column number, or null to choose as described above
   */
  IdentifierFile(Path file, IdentityInput type, String column) {
    this.file = file;
    this.type = type;
    this.column = column;
  }

  /**
   * Reads the file from line {@code skipLines + 1} on, handing {@code chunkSize} identifiers at a
   * time to {@code sink}. Returns the number of lines in the file.
   *
   * @throws IllegalArgumentException if {@code --column} names no column of the header
   */
  long read(long skipLines, int chunkSize, ChunkSink sink) throws IOException {
    return read(skipLines, chunkSize, chunkSize, sink);
  }

  /**
   * {@link #read(long, int, ChunkSink)} with a first chunk of its own size, each next one twice as
   * large up to {@code chunkSize}: a smaller one gets the first identifiers to the sink (and on to
   * the server) sooner.
   */
  long read(long skipLines, int firstChunkSize, int chunkSize, ChunkSink sink) throws IOException {
    try (LineReader in = new LineReader(Files.newInputStream(file), file.toString())) {
      String first = firstRecord(in);
      if (first == null) {
        return 0;
      }
      Layout layout = layout(first);
      long line = in.lineNumber();
      long reported = skipLines;
      IdentifierBatch chunk = new IdentifierBatch(chunkSize);
      int limit = firstChunkSize;
      if (!layout.header() && skipLines < 1 && !addValue(first, layout, chunk)) {
        withoutValue++;
      }
      for (; line < skipLines; line++) {
        if (!in.nextLine()) {
          return line;
        }
      }
      while (in.nextLine()) {
        if (!addLine(in, layout, chunk)) {
          withoutValue++;
        }
        line = in.lineNumber(); // past the lines of a quoted field that spans several
        if (chunk.size() >= limit) {
          sink.accept(chunk, line);
          limit = (int) Math.min(chunkSize, 2L * limit);
          reported = line;
          chunk.clear();
        }
      }
      if (!chunk.isEmpty() || line > reported) {
        sink.accept(chunk, line);
      }
      return line;
    }
  }

  /**
   * The kind every value of the file is read as (the {@code --type} given, else the kind its header
   * names), or null when each value's own shape decides ({@link #guess(String)}).
   *
   * @throws IllegalArgumentException if {@code --column} names no column of the header
   */
  IdentityInput fixedKind() throws IOException {
    try (LineReader in = new LineReader(Files.newInputStream(file), file.toString())) {
      String first = firstRecord(in);
      if (first == null) {
        return type;
      }
      return layout(first).kind();
    }
  }

  /**
   * Adds the current line's value. A line of ASCII without quotes (nearly every line of a real
   * file) is read from its bytes: the field between commas, stripped, guessed and added as it is;
   * any other line goes through {@link Csv} as text. Both give the same identifier. Returns false
   * when the line has no value in the column.
   */
  private boolean addLine(LineReader in, Layout layout, IdentifierBatch chunk) throws IOException {
    byte[] b = in.bytes();
    int end = in.end();
    int shape = ByteScan.lineShape(b, in.start(), end); // one pass: commas, quotes, non-ASCII, '@'
    if ((shape & (ByteScan.QUOTE | ByteScan.NON_ASCII)) != 0) {
      return addValue(record(in, in.line()), layout, chunk);
    }
    int from = in.start();
    int to = end;
    if ((shape & ByteScan.COMMA) != 0) {
      for (int field = 0; field < layout.index(); field++) {
        int comma = ByteScan.indexOf(b, from, end, (byte) ',');
        if (comma < 0) {
          return false; // no such column on this line
        }
        from = comma + 1;
      }
      int comma = ByteScan.indexOf(b, from, end, (byte) ',');
      to = comma < 0 ? end : comma;
    } else if (layout.index() > 0) {
      return false; // one field only: no such column on this line
    }
    while (from < to && isAsciiWhitespace(b[from])) {
      from++;
    }
    while (to > from && isAsciiWhitespace(b[to - 1])) {
      to--;
    }
    if (from == to) {
      return false;
    }
    IdentityInput kind =
        layout.kind() != null
            ? layout.kind()
            : (shape & (ByteScan.COMMA | ByteScan.AT)) == ByteScan.AT
                ? IdentityInput.EMAIL // the line is the field
                : guess(b, from, to);
    chunk.addUtf8(kind, b, from, to - from);
    return true;
  }

  /** The first record (its BOM removed), or null for an empty file. */
  private String firstRecord(LineReader in) throws IOException {
    String first = in.readLine();
    if (first == null) {
      return null;
    }
    return record(in, first.startsWith("\uFEFF") ? first.substring(1) : first);
  }

  /**
   * The record that begins with the current line, {@code line}: that line alone, or, while a quoted
   * field is open at a line's end (RFC 4180 allows line breaks in one), joined with the lines after
   * it by {@code \n}; the reader is then on its last line. Otherwise the rest of a line of a quoted
   * field would be read as a record of its own, and a value in it, an address in a note, mapped as
   * if it were in the column.
   *
   * @throws IOException if the quoted field does not end before the file does, or within {@value
   *     #MAX_RECORD_CHARS} characters (a stray quote, which would take the lines after it)
   */
  private String record(LineReader in, String line) throws IOException {
    int state = Csv.state(line, Csv.FIELD_START);
    if (state != Csv.QUOTED) {
      return line;
    }
    long from = in.lineNumber();
    StringBuilder text = new StringBuilder(line);
    while (state == Csv.QUOTED) {
      if (!in.nextLine()) {
        throw new IOException(unclosed(from, "the file ends first"));
      }
      String next = in.line();
      text.append('\n').append(next);
      if (text.length() > MAX_RECORD_CHARS) {
        throw new IOException(unclosed(from, "it goes on past line " + in.lineNumber()));
      }
      state = Csv.state(next, Csv.QUOTED);
    }
    return text.toString();
  }

  private String unclosed(long line, String why) {
    return file
        + ", line "
        + line
        + " opens a quoted field (\") that does not end: "
        + why
        + "; close the quotes (or double a quote inside a quoted field) and run the command again";
  }

  /** Lines read by {@link #read} that had no value in the column, and so gave no identifier. */
  long linesWithoutValue() {
    return withoutValue;
  }

  /**
   * {@link Character#isWhitespace} for an ASCII character, which {@link String#strip()} removes.
   */
  private static boolean isAsciiWhitespace(byte c) {
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  }

  /**
   * About how many lines the file has: its size over the mean length of the lines in three samples
   * of 32 KiB (its start, middle and end; lines often grow longer down a file, as numbered ones
   * do). For the progress: a guess, never a count.
   */
  long estimateLines() throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      int sample = 32 * 1024;
      long[] starts =
          size <= 3L * sample ? new long[] {0} : new long[] {0, size / 2, size - sample};
      ByteBuffer buffer = ByteBuffer.allocate(size <= 3L * sample ? (int) size : sample);
      long bytes = 0;
      long lines = 0;
      for (long start : starts) {
        buffer.clear();
        while (buffer.hasRemaining() && channel.read(buffer, start + buffer.position()) > 0) {
          // reads until the sample is full (or the file ends)
        }
        byte[] b = buffer.array();
        int n = buffer.position();
        // Line ends found eight bytes at a time: this runs before the first request leaves, while
        // a byte-by-byte loop would still be interpreted (about 10 ms for the three samples).
        for (int end = ByteScan.lineEnd(b, 0, n); end >= 0; end = ByteScan.lineEnd(b, end + 1, n)) {
          if (b[end] == '\n' || end + 1 == n || b[end + 1] != '\n') {
            lines++; // LF, or a CR not followed by LF (CR LF counts once, at its LF)
          }
        }
        bytes += n;
      }
      return bytes == 0 ? 0 : Math.max(1, size * Math.max(1, lines) / bytes);
    }
  }

  private record Layout(boolean header, int index, IdentityInput kind) {}

  /**
   * How the file is read, from its first record.
   *
   * @throws IllegalArgumentException if {@code --column} names no column of it, or it has no header
   *     of ours between commas but has one between semicolons, tabs or bars (a spreadsheet's export
   *     in another dialect, whose every line would otherwise be one value: {@code a@example.com;42}
   *     is a valid address to the server, mapped as it is)
   */
  private Layout layout(String first) {
    List<String> firstFields = Csv.fields(first);
    List<String> names = new ArrayList<>(firstFields.size());
    for (String field : firstFields) {
      names.add(field.strip().toLowerCase(Locale.ROOT));
    }
    if (column != null && Numbers.isDigits(column, 9)) {
      int index = Integer.parseInt(column) - 1;
      if (index < 0) {
        throw new IllegalArgumentException("--column counts from 1");
      }
      if (index >= names.size()) {
        throw new IllegalArgumentException(
            "--column "
                + column
                + " is beyond the first line, which has "
                + names.size()
                + (names.size() == 1 ? " column" : " columns")
                + otherSeparator(first, null));
      }
      boolean header = index < names.size() && HEADERS.contains(names.get(index));
      return new Layout(
          header, index, type != null ? type : header ? kindOf(names.get(index)) : null);
    }
    int index =
        column != null
            ? names.indexOf(column.strip().toLowerCase(Locale.ROOT))
            : firstHeader(names);
    if (column != null && index < 0) {
      throw new IllegalArgumentException(
          "no column named '"
              + column
              + "' in the first line"
              + otherSeparator(first, column.strip().toLowerCase(Locale.ROOT)));
    }
    if (index < 0) {
      String other = column == null ? otherSeparator(first, "") : "";
      if (!other.isEmpty()) {
        throw new IllegalArgumentException(
            file
                + ": no column named "
                + String.join(", ", HEADER_ORDER)
                + " between commas in the first line"
                + other);
      }
      return new Layout(false, 0, type);
    }
    return new Layout(true, index, type != null ? type : kindOf(names.get(index)));
  }

  /**
   * A hint when the first line is separated by a character other than the comma: {@code "; it looks
   * separated by ';' ..."}, or "" when it does not. With {@code wanted} "" only a line whose fields
   * include a header of ours counts; with a name, one whose fields include it; with null, any line
   * of several such fields.
   */
  private static String otherSeparator(String first, String wanted) {
    for (char separator : new char[] {';', '\t', '|'}) {
      if (first.indexOf(separator) < 0 || first.indexOf(',') >= 0) {
        continue;
      }
      List<String> names = new ArrayList<>();
      for (String name :
          first.split(java.util.regex.Pattern.quote(String.valueOf(separator)), -1)) {
        names.add(name.strip().toLowerCase(Locale.ROOT));
      }
      boolean looksSo =
          wanted == null || (wanted.isEmpty() ? firstHeader(names) >= 0 : names.contains(wanted));
      if (looksSo) {
        return "; it looks separated by "
            + (separator == '\t' ? "tabs" : "'" + separator + "'")
            + ", but veil map reads comma-separated values (RFC 4180): save the file with commas"
            + " between the fields and run the command again";
      }
    }
    return "";
  }

  private static int firstHeader(List<String> names) {
    for (int i = 0; i < names.size(); i++) {
      if (HEADERS.contains(names.get(i))) {
        return i;
      }
    }
    return -1;
  }

  private static IdentityInput kindOf(String header) {
    return header.equals("hash")
        ? IdentityInput.EMAIL_HASH
        : IdentityInput.fromParameterName(header);
  }

  /** Adds the line's value; false when it has none in the column. */
  private static boolean addValue(String line, Layout layout, IdentifierBatch chunk) {
    List<String> fields = Csv.fields(line);
    if (layout.index() >= fields.size()) {
      return false;
    }
    String value = fields.get(layout.index()).strip();
    if (value.isEmpty()) {
      return false;
    }
    chunk.add(Identifier.of(layout.kind() != null ? layout.kind() : guess(value), value));
    return true;
  }

  /** The kind a value most likely is; an unrecognizable value is taken as an (invalid) email. */
  static IdentityInput guess(String value) {
    if (value.indexOf('@') >= 0) {
      return IdentityInput.EMAIL;
    }
    if (value.startsWith("+")) {
      return IdentityInput.PHONE;
    }
    if ((value.length() == 44 || value.length() == 43 || value.length() == 64)
        && value
            .chars()
            .allMatch(c -> Character.isLetterOrDigit(c) || c == '+' || c == '/' || c == '=')) {
      return IdentityInput.EMAIL_HASH;
    }
    return IdentityInput.EMAIL;
  }

  /** {@link #guess(String)} of the ASCII value in bytes {@code [from, to)}. */
  private static IdentityInput guess(byte[] b, int from, int to) {
    if (ByteScan.indexOf(b, from, to, (byte) '@') >= 0) {
      return IdentityInput.EMAIL; // nearly every line: found eight bytes at a time
    }
    boolean hashCharacters = true;
    for (int i = from; i < to; i++) {
      byte c = b[i];
      hashCharacters &=
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '+'
              || c == '/'
              || c == '=';
    }
    if (b[from] == '+') {
      return IdentityInput.PHONE;
    }
    int length = to - from;
    return hashCharacters && (length == 44 || length == 43 || length == 64)
        ? IdentityInput.EMAIL_HASH
        : IdentityInput.EMAIL;
  }
}
