package dev.veil.sdk.internal;

import java.nio.charset.StandardCharsets;

/**
 * Reads a mapping answer in the exact shape a Veil server writes it, straight from its bytes:
 * {@code {"status":"success","body":{"mapped":[{"identifier":"…","advertising_id":"…",
 * "bucket_id":"…"},…],"unmapped":[{"identifier":"…","reason":"…"},…]}}} with no spaces, members in
 * this order and no escapes inside strings. The ids are not copied: the answer refers to the body.
 * Anything else (spaces, another order, an escape, a proxy's rewriting) is not an error here:
 * {@link #scan} returns null and {@link MapJson} reads the body with a general JSON parser. The
 * answer is matched to the request like there: each echoed identifier against the value sent.
 */
final class MapAnswerScanner extends AnswerScan {
  private static final byte[] START = ascii("{\"status\":\"success\",\"body\":{\"mapped\":[");
  private static final byte[] IDENTIFIER = ascii("{\"identifier\":\"");
  private static final byte[] ADVERTISING_ID = ascii("\",\"advertising_id\":\"");
  private static final byte[] BUCKET_ID = ascii("\",\"bucket_id\":\"");
  private static final byte[] REASON = ascii("\",\"reason\":\"");
  private static final byte[] UNMAPPED = ascii(",\"unmapped\":[");

  /** No value sent needs a JSON escape: an echo is the value's bytes as they are, then a quote. */
  private final boolean plain;

  private MapAnswerScanner(byte[] body, boolean plain) {
    super(body);
    this.plain = plain;
  }

  /** The answer, or null if the body is not in the expected shape. */
  static MapAnswer scan(byte[] body, ValueList sent) {
    return new MapAnswerScanner(body, !sent.needsEscapes()).answer(sent);
  }

  private MapAnswer answer(ValueList sent) {
    int n = sent.size();
    int[] offsets = new int[4 * n];
    String[] reasons = new String[n];
    boolean[] mapped = new boolean[n];
    if (!literal(START)) {
      return null;
    }
    int i = 0;
    if (b.length > pos && b[pos] != ']') {
      do {
        while (i < n && !echoes(sent, i)) {
          i++; // not mapped: it must come in the unmapped list
        }
        if (i == n || !literal(ADVERTISING_ID)) {
          return null;
        }
        offsets[4 * i] = pos;
        offsets[4 * i + 1] = idEnd();
        if (offsets[4 * i + 1] < 0 || !literal(BUCKET_ID)) {
          return null;
        }
        offsets[4 * i + 2] = pos;
        offsets[4 * i + 3] = idEnd();
        if (offsets[4 * i + 3] < 0 || !literal((byte) '"') || !literal((byte) '}')) {
          return null;
        }
        mapped[i++] = true;
      } while (literal((byte) ','));
    }
    if (!literal((byte) ']')) {
      return null;
    }
    if (literal(UNMAPPED) && !unmapped(sent, mapped, reasons)) {
      return null;
    }
    if (!literal((byte) '}')) {
      return null; // the body object's end
    }
    if (!literal((byte) '}')) {
      return null; // the answer's end
    }
    if (!onlyWhitespaceLeft()) {
      return null;
    }
    for (int k = 0; k < n; k++) {
      if (!mapped[k] && reasons[k] == null) {
        return null; // an identifier the answer does not mention
      }
    }
    return new MapAnswer(b, offsets, reasons, idsPlainCsv);
  }

  /** The unmapped list after its {@code [}: each entry the next value sent that is not mapped. */
  private boolean unmapped(ValueList sent, boolean[] mapped, String[] reasons) {
    int i = 0;
    if (pos < b.length && b[pos] == ']') {
      pos++;
      return true;
    }
    do {
      while (i < mapped.length && mapped[i]) {
        i++;
      }
      if (i == mapped.length || !echoes(sent, i) || !literal(REASON)) {
        return false;
      }
      int start = pos;
      int end = stringEnd();
      if (end < 0 || !literal((byte) '"') || !literal((byte) '}')) {
        return false;
      }
      reasons[i++] = new String(b, start, end - start, StandardCharsets.UTF_8);
    } while (literal((byte) ','));
    return literal((byte) ']');
  }

  /**
   * Whether an entry starting here echoes value {@code i}: consumes <code>{"identifier":"…</code>
   * up to the closing quote if so, nothing if not.
   */
  private boolean echoes(ValueList sent, int i) {
    int mark = pos;
    if (!literal(IDENTIFIER)) {
      pos = mark;
      return false;
    }
    int start = pos;
    if (plain) {
      // The value's bytes then the closing quote: what scanning to the quote and comparing finds.
      int end = start + sent.length(i);
      if (end < b.length && b[end] == '"' && sent.equalsAt(i, b, start, end)) {
        pos = end;
        return true;
      }
    } else {
      int end = stringEnd();
      if (end >= 0 && sent.equalsAt(i, b, start, end)) {
        return true;
      }
    }
    pos = mark;
    return false;
  }
}
