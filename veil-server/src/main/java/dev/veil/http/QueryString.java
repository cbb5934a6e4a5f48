package dev.veil.http;

import dev.veil.common.VeilException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Parses a raw query string ({@code a=1&b=x%2By}) into {@link Params}, decoding each name and value
 * exactly once (docs/spec.md 1.1): {@code %XX} escapes, and {@code +} as a space, as HTML forms and
 * most HTTP clients encode it. A base64 value whose {@code +} was not escaped therefore arrives
 * with a space and is refused by the value's own parser as malformed, never answered with a 5xx.
 *
 * <p>Strict where lenient decoders guess: a broken escape ({@code %G1}, a trailing {@code %}) or
 * bytes that are not valid UTF-8 make the whole query a client error. Empty segments ({@code
 * a=1&&b=2}) are skipped; a name without {@code =} has the empty value.
 */
final class QueryString {
  static final String MALFORMED = "Malformed query string: invalid percent-encoding or UTF-8";

  private QueryString() {}

  static Params parse(String rawQuery) {
    Params params = Params.empty();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    int start = 0;
    while (start <= rawQuery.length()) {
      int end = rawQuery.indexOf('&', start);
      if (end < 0) {
        end = rawQuery.length();
      }
      if (end > start) {
        int eq = rawQuery.indexOf('=', start);
        if (eq < 0 || eq > end) {
          params.add(decode(rawQuery, start, end), "");
        } else {
          params.add(decode(rawQuery, start, eq), decode(rawQuery, eq + 1, end));
        }
      }
      start = end + 1;
    }
    return params;
  }

  /** Decodes {@code s[from, to)}; the common case (no escapes, no '+') returns a substring. */
  static String decode(String s, int from, int to) {
    boolean plain = true;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c == '%' || c == '+' || c > 0x7e) {
        plain = false;
        break;
      }
    }
    if (plain) {
      return s.substring(from, to);
    }
    byte[] bytes = new byte[to - from];
    int n = 0;
    boolean ascii = true;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      byte b;
      if (c == '%') {
        if (i + 2 >= to) {
          throw VeilException.clientError(MALFORMED);
        }
        int hi = Character.digit(s.charAt(i + 1), 16);
        int lo = Character.digit(s.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw VeilException.clientError(MALFORMED);
        }
        b = (byte) ((hi << 4) | lo);
        i += 2;
      } else if (c == '+') {
        b = (byte) ' ';
      } else if (c > 0xff) {
        // Netty hands the request line over as ISO-8859-1 text: each char is one raw byte.
        throw VeilException.clientError(MALFORMED);
      } else {
        b = (byte) c;
      }
      ascii &= b >= 0;
      bytes[n++] = b;
    }
    if (ascii) {
      return new String(bytes, 0, n, StandardCharsets.US_ASCII);
    }
    return utf8(ByteBuffer.wrap(bytes, 0, n));
  }

  private static String utf8(ByteBuffer bytes) {
    CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer chars = utf8.decode(bytes);
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw VeilException.clientError(MALFORMED);
    }
  }
}
