package dev.veil.http;

import dev.veil.core.text.HexDigit;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The spelling of a request path that the route table is looked up with when the path as sent
 * matches no route: what UID2's operator (a Vert.x Web router) also matched, so that a UID2 v1
 * integration with a base URL ending in {@code /}, for one, keeps working (docs/spec.md 1.10).
 * Percent-encoded unreserved characters are decoded (RFC 3986 section 6.2.2.2), empty and {@code .}
 * segments are dropped, {@code ..} removes the segment before it (section 5.2.4), and so a trailing
 * {@code /} goes too. Only a miss pays for this; a path spelled as in the table is found as it is.
 */
final class RequestPath {
  private RequestPath() {}

  /**
   * {@code raw} in its normal spelling, e.g. {@code //v1/token/%72efresh/} → {@code
   * /v1/token/refresh}.
   */
  static String normalize(String raw) {
    String decoded = decodeUnreserved(raw);
    Deque<String> segments = new ArrayDeque<>();
    for (String segment : decoded.split("/", -1)) {
      if (segment.equals("..")) {
        segments.pollLast();
      } else if (!segment.isEmpty() && !segment.equals(".")) {
        segments.addLast(segment);
      }
    }
    return "/" + String.join("/", segments);
  }

  /** Decodes {@code %XX} escapes of unreserved characters; every other escape stays as it is. */
  private static String decodeUnreserved(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    StringBuilder out = new StringBuilder(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%' && i + 2 < raw.length()) {
        int high = HexDigit.value(raw.charAt(i + 1));
        int low = HexDigit.value(raw.charAt(i + 2));
        char decoded = (char) (high * 16 + low);
        if (high >= 0 && low >= 0 && isUnreserved(decoded)) {
          out.append(decoded);
          i += 2;
          continue;
        }
      }
      out.append(c);
    }
    return out.toString();
  }

  /** RFC 3986 section 2.3: {@code ALPHA / DIGIT / "-" / "." / "_" / "~"}. */
  private static boolean isUnreserved(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~';
  }
}
