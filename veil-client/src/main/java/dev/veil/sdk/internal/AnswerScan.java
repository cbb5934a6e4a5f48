package dev.veil.sdk.internal;

import dev.veil.core.text.ByteScan;
import java.nio.charset.StandardCharsets;

/**
 * What the scanners of map answers in the server's own shape share ({@link MapAnswerScanner} for
 * v1, {@link MapV3AnswerScanner} for v3): a position in the body, literals, strings without
 * escapes, and ids whose commas are noted for the CSV writer. Not thread-safe: one per answer.
 */
abstract class AnswerScan {
  /** The body. */
  final byte[] b;

  /** Where the scan is. */
  int pos;

  /** No id scanned so far holds a comma (a quote, CR or LF ends the scan). */
  boolean idsPlainCsv = true;

  AnswerScan(byte[] body) {
    this.b = body;
  }

  /**
   * {@link #stringEnd()} of an advertising or bucket id, noting a comma in it (a quote, CR or LF
   * cannot be there: they end the string or the scan).
   */
  final int idEnd() {
    int p = ByteScan.jsonSpecialOrComma(b, pos, b.length);
    while (p >= 0 && b[p] == ',') {
      idsPlainCsv = false;
      p = ByteScan.jsonSpecialOrComma(b, p + 1, b.length);
    }
    if (p < 0 || b[p] != '"') {
      return -1;
    }
    pos = p;
    return p;
  }

  /**
   * Moves to the closing quote of the string starting here; its position, or -1 at an escape or the
   * end.
   */
  final int stringEnd() {
    int p = ByteScan.jsonSpecial(b, pos, b.length);
    if (p < 0 || b[p] != '"') {
      return -1;
    }
    pos = p;
    return p;
  }

  /** Whether {@code text} is next; moves past it if so. */
  final boolean literal(byte[] text) {
    if (b.length - pos < text.length || !ByteScan.sameBytes(b, pos, text, 0, text.length)) {
      return false;
    }
    pos += text.length;
    return true;
  }

  /** Whether {@code c} is next; moves past it if so. */
  final boolean literal(byte c) {
    if (pos < b.length && b[pos] == c) {
      pos++;
      return true;
    }
    return false;
  }

  /** Whether nothing but JSON whitespace is left. */
  final boolean onlyWhitespaceLeft() {
    while (pos < b.length
        && (b[pos] == ' ' || b[pos] == '\n' || b[pos] == '\r' || b[pos] == '\t')) {
      pos++;
    }
    return pos == b.length;
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
