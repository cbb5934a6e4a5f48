package dev.veil.cli.map;

import dev.veil.core.text.ByteScan;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads lines of UTF-8 text like {@link java.io.BufferedReader#readLine()} (ended by LF, CR or CR
 * LF; malformed UTF-8 is an error), but from bytes: an ASCII line becomes a string without a
 * decoder, and a line can be used as bytes ({@link #nextLine()}) or skipped without becoming
 * anything. Input files run to millions of lines. Not thread-safe.
 */
final class LineReader implements Closeable {
  private final InputStream in;

  /** What the lines are read from, for messages ("input.csv"). */
  private final String name;

  /** The current line's number, from 1. */
  private long lineNumber;

  private final CharsetDecoder utf8 =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
  private byte[] buf = new byte[1 << 16];
  private int pos;
  private int limit;
  private boolean eof;

  /** The last line ended with CR: a LF right after it belongs to that line end. */
  private boolean afterCr;

  private int lineStart;
  private int lineEnd;

  LineReader(InputStream in) {
    this(in, "the input");
  }

  /**
   * @param name what the lines are read from, named in the message of a line that is not UTF-8
   */
  LineReader(InputStream in, String name) {
    this.in = in;
    this.name = name;
  }

  /** A line that is not well-formed UTF-8, with a message that says which line of which file. */
  static final class NotUtf8Exception extends MalformedInputException {
    private static final long serialVersionUID = 1L;
    private final String where;

    NotUtf8Exception(String where, int inputLength) {
      super(inputLength);
      this.where = where;
    }

    @Override
    public String getMessage() {
      return where + " is not UTF-8 text";
    }
  }

  /** The next line without its end, or null after the last. */
  String readLine() throws IOException {
    return next() ? line() : null;
  }

  /**
   * Moves to the next line (false after the last), whose bytes, without its end, are then {@link
   * #bytes()} from {@link #start()} to {@link #end()} until the next move. A line skipped this way
   * becomes nothing.
   */
  boolean nextLine() throws IOException {
    return next();
  }

  byte[] bytes() {
    return buf;
  }

  /** The current line's number, from 1 (0 before the first). */
  long lineNumber() {
    return lineNumber;
  }

  int start() {
    return lineStart;
  }

  int end() {
    return lineEnd;
  }

  /**
   * The current line as text.
   *
   * @throws NotUtf8Exception if it is not well-formed UTF-8
   */
  String line() throws IOException {
    for (int i = lineStart; i < lineEnd; i++) {
      if (buf[i] < 0) {
        try {
          return utf8.decode(ByteBuffer.wrap(buf, lineStart, lineEnd - lineStart)).toString();
        } catch (MalformedInputException e) {
          throw new NotUtf8Exception(name + ", line " + lineNumber, e.getInputLength());
        }
      }
    }
    return new String(buf, lineStart, lineEnd - lineStart, StandardCharsets.ISO_8859_1);
  }

  /** Finds the next line: bytes {@code [lineStart, lineEnd)} of the buffer. */
  private boolean next() throws IOException {
    int scanFrom = pos;
    while (true) {
      if (afterCr && pos < limit) {
        afterCr = false;
        if (buf[pos] == '\n') {
          pos++;
          scanFrom = pos;
        }
      }
      int i = ByteScan.lineEnd(buf, scanFrom, limit);
      if (i >= 0) {
        lineNumber++;
        lineStart = pos;
        lineEnd = i;
        pos = i + 1;
        afterCr = buf[i] == '\r';
        return true;
      }
      scanFrom = limit;
      if (eof) {
        if (pos == limit) {
          return false;
        }
        lineNumber++;
        lineStart = pos;
        lineEnd = limit;
        pos = limit;
        return true;
      }
      int kept = limit - pos;
      if (pos > 0) {
        System.arraycopy(buf, pos, buf, 0, kept);
        scanFrom -= pos;
        pos = 0;
        limit = kept;
      } else if (limit == buf.length) {
        buf = Arrays.copyOf(buf, buf.length * 2); // a line longer than the buffer
      }
      int n = in.read(buf, limit, buf.length - limit);
      if (n < 0) {
        eof = true;
      } else {
        limit += n;
      }
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
