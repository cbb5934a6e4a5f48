package dev.veil.http;

import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes the JSON of the hot answers (token pairs, identity maps) as UTF-8 into one growable byte
 * array, which becomes the response buffer without a copy ({@link #toBuffer()}). Everything else is
 * written with Jackson ({@link Envelope}).
 *
 * <p>Design note. A generate answer is about 550 bytes of which 386 are token text, and a map
 * answer is a few fixed keys around identifiers, base64 ids and bucket ids: writing them by hand
 * avoids a generator, its buffers and the copy from its buffer into the response per request, and
 * lets token text and bucket ids be copied as bytes rather than go through strings. The writer does
 * only what those answers need: constant ASCII, non-negative and negative {@code long}s, escaped
 * strings and standard base64. Strings are escaped as Jackson escapes them ({@code \"}, {@code \\},
 * {@code \n}, {@code \r}, {@code \t}, {@code \b}, {@code \f}, other control characters and every
 * surrogate (so characters beyond the BMP as an escaped pair) as six-character backslash-u escapes
 * with upper-case hex digits, everything else as UTF-8); a surrogate without its partner, which
 * Jackson refuses to write, is escaped the same way, so any Java string can be echoed.
 *
 * <p>Not thread-safe; one instance per answer.
 */
final class JsonBytes {
  private static final byte[] BASE64 =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
          .getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] LONG_MIN =
      Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

  private byte[] bytes;
  private int length;

  JsonBytes(int capacity) {
    this.bytes = new byte[Math.max(16, capacity)];
  }

  /** ASCII bytes of a constant (keys, punctuation): copied as they are. */
  static byte[] ascii(String constant) {
    return constant.getBytes(StandardCharsets.US_ASCII);
  }

  /** The array being written; valid until the next write (which may replace it). */
  byte[] array() {
    return bytes;
  }

  /** Bytes written so far, from the start of {@link #array()}. */
  int length() {
    return length;
  }

  /**
   * Makes room for {@code n} bytes, counts them as written, and returns where they start in {@link
   * #array()}.
   */
  int reserve(int n) {
    ensure(n);
    int at = length;
    length += n;
    return at;
  }

  JsonBytes raw(byte[] ascii) {
    ensure(ascii.length);
    System.arraycopy(ascii, 0, bytes, length, ascii.length);
    length += ascii.length;
    return this;
  }

  JsonBytes raw(char c) {
    ensure(1);
    bytes[length++] = (byte) c;
    return this;
  }

  /** A JSON number. */
  JsonBytes number(long v) {
    if (v >= 0 && v <= Integer.MAX_VALUE) {
      return nonNegativeInt((int) v);
    }
    if (v == Long.MIN_VALUE) {
      return raw(LONG_MIN);
    }
    ensure(20);
    if (v < 0) {
      bytes[length++] = '-';
      v = -v;
    }
    int digits = 1;
    for (long t = v; t >= 10; t /= 10) {
      digits++;
    }
    for (int i = length + digits - 1; i >= length; i--) {
      bytes[i] = (byte) ('0' + (int) (v % 10));
      v /= 10;
    }
    length += digits;
    return this;
  }

  /**
   * A number from 0 to {@link Integer#MAX_VALUE}, two digits per step with int arithmetic: epoch
   * seconds, such as the refresh time of every v3 map entry, are in this range until 2038.
   */
  private JsonBytes nonNegativeInt(int v) {
    ensure(10);
    int digits = 1;
    for (int t = v; t >= 10; t /= 10) {
      digits++;
    }
    byte[] b = bytes;
    int i = length + digits;
    while (v >= 100) {
      int q = v / 100;
      int r = v - q * 100;
      b[--i] = (byte) ('0' + r % 10);
      b[--i] = (byte) ('0' + r / 10);
      v = q;
    }
    if (v >= 10) {
      b[--i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    b[--i] = (byte) ('0' + v);
    length += digits;
    return this;
  }

  /** {@code s} as a quoted, escaped JSON string. */
  JsonBytes string(String s) {
    int n = s.length();
    if (isPlainAscii(s, n)) {
      // The common case (identifiers, bucket ids): one bulk copy of the characters' low bytes.
      ensure(n + 2);
      byte[] b = bytes;
      int at = length;
      b[at] = '"';
      copyLatin1(s, n, b, at + 1);
      b[at + 1 + n] = '"';
      length = at + n + 2;
      return this;
    }
    return string(s, 0, n);
  }

  private static boolean isPlainAscii(String s, int n) {
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code String.getBytes(int, int, byte[], int)} copies each char's low byte: right for ASCII,
   * and fast.
   */
  @SuppressWarnings("deprecation")
  private static void copyLatin1(String s, int n, byte[] out, int off) {
    s.getBytes(0, n, out, off);
  }

  /** {@code s[from, to)} as a quoted, escaped JSON string. */
  JsonBytes string(CharSequence s, int from, int to) {
    // Worst case per char: 6 bytes (a backslash-u escape); 3 for any other UTF-16 unit.
    ensure(2 + 6 * (to - from));
    bytes[length++] = '"';
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c != '"' && c != '\\') {
          bytes[length++] = (byte) c;
        } else {
          escapeAscii(c);
        }
      } else if (c < 0x800) {
        bytes[length++] = (byte) (0xC0 | (c >> 6));
        bytes[length++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isSurrogate(c)) {
        unicodeEscape(c);
      } else {
        bytes[length++] = (byte) (0xE0 | (c >> 12));
        bytes[length++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        bytes[length++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    bytes[length++] = '"';
    return this;
  }

  private void escapeAscii(char c) {
    char shortForm =
        switch (c) {
          case '"' -> '"';
          case '\\' -> '\\';
          case '\n' -> 'n';
          case '\r' -> 'r';
          case '\t' -> 't';
          case '\b' -> 'b';
          case '\f' -> 'f';
          default -> 0;
        };
    if (shortForm != 0) {
      bytes[length++] = '\\';
      bytes[length++] = (byte) shortForm;
    } else {
      unicodeEscape(c);
    }
  }

  private void unicodeEscape(char c) {
    bytes[length++] = '\\';
    bytes[length++] = 'u';
    bytes[length++] = HEX[(c >> 12) & 0xF];
    bytes[length++] = HEX[(c >> 8) & 0xF];
    bytes[length++] = HEX[(c >> 4) & 0xF];
    bytes[length++] = HEX[c & 0xF];
  }

  /** {@code src[off, off+n)} as a quoted string of standard base64 with padding. */
  JsonBytes base64String(byte[] src, int off, int n) {
    ensure(2 + 4 * ((n + 2) / 3));
    byte[] b = bytes;
    int at = length;
    b[at++] = '"';
    int end = off + n - n % 3;
    for (int i = off; i < end; i += 3) {
      int v = (src[i] & 0xFF) << 16 | (src[i + 1] & 0xFF) << 8 | (src[i + 2] & 0xFF);
      b[at] = BASE64[v >>> 18];
      b[at + 1] = BASE64[(v >>> 12) & 63];
      b[at + 2] = BASE64[(v >>> 6) & 63];
      b[at + 3] = BASE64[v & 63];
      at += 4;
    }
    int rest = n % 3;
    if (rest > 0) {
      int v = (src[end] & 0xFF) << 16 | (rest == 2 ? (src[end + 1] & 0xFF) << 8 : 0);
      b[at] = BASE64[v >>> 18];
      b[at + 1] = BASE64[(v >>> 12) & 63];
      b[at + 2] = rest == 2 ? BASE64[(v >>> 6) & 63] : (byte) '=';
      b[at + 3] = '=';
      at += 4;
    }
    b[at++] = '"';
    length = at;
    return this;
  }

  /**
   * The bytes written, as a buffer that shares this writer's array (Vert.x 5's public {@code
   * Buffer.buffer(byte[])} would copy it). Write nothing more afterwards.
   */
  Buffer toBuffer() {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(bytes, 0, length));
  }

  private void ensure(int n) {
    if (length + n > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(length + n, bytes.length * 2));
    }
  }
}
