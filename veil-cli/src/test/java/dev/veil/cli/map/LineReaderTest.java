package dev.veil.cli.map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineReaderTest {
  private static List<String> lines(byte[] bytes, int chunk) throws IOException {
    List<String> lines = new ArrayList<>();
    try (LineReader in = new LineReader(new Trickle(bytes, chunk))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
      }
    }
    return lines;
  }

  private static List<String> bufferedReaderLines(byte[] bytes) throws IOException {
    List<String> lines = new ArrayList<>();
    BufferedReader in =
        new BufferedReader(
            new InputStreamReader(new ByteArrayInputStream(bytes), StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      lines.add(line);
    }
    return lines;
  }

  @Test
  void linesEndLikeBufferedReaders_lfCrCrlf_whereverTheReadsSplitThem() throws IOException {
    byte[] text =
        "a@x.com\r\nb@x.com\rc@x.com\n\nü@x.com\r\r\nlast".getBytes(StandardCharsets.UTF_8);

    for (int chunk : new int[] {1, 2, 3, 7, 1 << 20}) {
      assertThat(lines(text, chunk))
          .as("reads of %d bytes", chunk)
          .isEqualTo(bufferedReaderLines(text))
          .containsExactly("a@x.com", "b@x.com", "c@x.com", "", "ü@x.com", "", "last");
    }
  }

  @Test
  void longLines_emptyInput_andATrailingLineEnd() throws IOException {
    String longLine = "x".repeat(200_000);

    assertThat(lines((longLine + "\nshort\n").getBytes(StandardCharsets.UTF_8), 4096))
        .containsExactly(longLine, "short");
    assertThat(lines(new byte[0], 10)).isEmpty();
    assertThat(lines("one\n".getBytes(StandardCharsets.UTF_8), 10)).containsExactly("one");
  }

  @Test
  void nextLine_countsLinesWithoutDecodingThem() throws IOException {
    try (LineReader in =
        new LineReader(new Trickle("1\r\n2\n3\r4\n".getBytes(StandardCharsets.UTF_8), 1))) {
      assertThat(in.nextLine()).isTrue();
      assertThat(in.nextLine()).isTrue();
      assertThat(in.readLine()).isEqualTo("3");
      assertThat(in.nextLine()).isTrue();
      assertThat(in.nextLine()).isFalse();
    }
  }

  @Test
  void malformedUtf8_isAnError_notReplaced() {
    byte[] bad = {'a', (byte) 0xC3, '\n'};

    assertThatThrownBy(() -> lines(bad, 10)).isInstanceOf(MalformedInputException.class);
  }

  @Test
  void malformedUtf8_saysWhichLineOfWhichFile() throws IOException {
    byte[] text = "ok@x.com\r\nok2@x.com\rb\u00e4d@x.com\n".getBytes(StandardCharsets.ISO_8859_1);
    try (LineReader in = new LineReader(new Trickle(text, 3), "emails.csv")) {
      assertThat(in.readLine()).isEqualTo("ok@x.com");
      assertThat(in.nextLine()).isTrue(); // skipped, still counted
      assertThatThrownBy(in::readLine)
          .isInstanceOf(MalformedInputException.class)
          .hasMessage("emails.csv, line 3 is not UTF-8 text");
    }
  }

  /** Hands out at most {@code chunk} bytes per read, as a pipe or a slow disk may. */
  private static final class Trickle extends InputStream {
    private final byte[] bytes;
    private final int chunk;
    private int pos;

    Trickle(byte[] bytes, int chunk) {
      this.bytes = bytes;
      this.chunk = chunk;
    }

    @Override
    public int read() {
      return pos < bytes.length ? bytes[pos++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos == bytes.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, chunk), bytes.length - pos);
      System.arraycopy(bytes, pos, b, off, n);
      pos += n;
      return n;
    }
  }
}
