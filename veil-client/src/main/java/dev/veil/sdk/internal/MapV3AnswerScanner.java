package dev.veil.sdk.internal;

import dev.veil.core.identity.IdentityInput;
import dev.veil.core.text.ByteScan;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@code POST /v3/identity/map} answer (the envelope's JSON) in the exact shape a Veil
 * server writes it, straight from its bytes: {@code {"status":"success","body":{"<kind>":[…],…}}}
 * with one array for each of the four kinds, no spaces, each entry {@code {"u":"…","p":"…"|null,
 * "r":<digits>}} or {@code {"e":"…"}}, and no escapes inside strings. The ids are not copied: the
 * answer refers to the body. Anything else (spaces, another order of members, an escape, a number
 * in another form, a count that does not match) is not an error here: {@link #scan} returns null
 * and {@link MapV3Json} reads the body with a general JSON parser, which also words the error.
 */
final class MapV3AnswerScanner extends AnswerScan {
  private static final byte[] START = ascii("{\"status\":\"success\",\"body\":{");
  private static final byte[] CURRENT = ascii("{\"u\":\"");
  private static final byte[] PREVIOUS = ascii("\",\"p\":");
  private static final byte[] NULL = ascii("null");
  private static final byte[] REFRESH = ascii(",\"r\":");
  private static final byte[] REASON = ascii("{\"e\":\"");
  private static final byte[] OPTOUT = ascii("optout");
  private static final String OPTOUT_REASON = "optout";

  /** The member name of each kind. */
  private static final Map<IdentityInput, byte[]> NAMES = names();

  /** Digits of the largest refresh time taken here: 10^15 seconds, far beyond any real one. */
  private static final int MAX_REFRESH_DIGITS = 15;

  private MapV3AnswerScanner(byte[] body) {
    super(body);
  }

  /**
   * The answer for {@code expected} values of {@code kind}, or null if {@code body} is not in the
   * expected shape.
   */
  static MapAnswer scan(byte[] body, IdentityInput kind, int expected) {
    return new MapV3AnswerScanner(body).answer(kind, expected);
  }

  private MapAnswer answer(IdentityInput kind, int expected) {
    if (!literal(START)) {
      return null;
    }
    int[] offsets = new int[4 * expected];
    int[] previous = new int[2 * expected];
    long[] refresh = new long[expected];
    String[] reasons = new String[expected];
    Set<IdentityInput> seen = EnumSet.noneOf(IdentityInput.class);
    do {
      IdentityInput member = memberName();
      if (member == null || !seen.add(member)) {
        return null;
      }
      if (member == kind) {
        if (!entries(expected, offsets, previous, refresh, reasons)) {
          return null;
        }
      } else if (!literal((byte) ']')) {
        return null; // another kind's array must be empty
      }
    } while (literal((byte) ','));
    if (!seen.contains(kind) || !literal((byte) '}') || !literal((byte) '}')) {
      return null;
    }
    if (!onlyWhitespaceLeft()) {
      return null;
    }
    return new MapAnswer(b, offsets, reasons, idsPlainCsv, previous, refresh);
  }

  /** {@code "<kind>":[} of one of the four kinds: that kind, or null. */
  private IdentityInput memberName() {
    if (!literal((byte) '"')) {
      return null;
    }
    int start = pos;
    int end = stringEnd();
    if (end < 0) {
      return null;
    }
    pos++;
    if (!literal((byte) ':') || !literal((byte) '[')) {
      return null;
    }
    for (Map.Entry<IdentityInput, byte[]> name : NAMES.entrySet()) {
      byte[] bytes = name.getValue();
      if (bytes.length == end - start && ByteScan.sameBytes(b, start, bytes, 0, bytes.length)) {
        return name.getKey();
      }
    }
    return null;
  }

  private static Map<IdentityInput, byte[]> names() {
    Map<IdentityInput, byte[]> names = new EnumMap<>(IdentityInput.class);
    for (IdentityInput input : IdentityInput.values()) {
      names.put(input, ascii(input.parameterName()));
    }
    return names;
  }

  /** Exactly {@code expected} entries and the array's end; false if anything differs. */
  private boolean entries(
      int expected, int[] offsets, int[] previous, long[] refresh, String[] reasons) {
    if (expected == 0) {
      return literal((byte) ']');
    }
    for (int i = 0; i < expected; i++) {
      if (i > 0 && !literal((byte) ',')) {
        return false;
      }
      if (literal(CURRENT)) {
        if (!mapped(i, offsets, previous, refresh)) {
          return false;
        }
      } else if (literal(REASON)) {
        int start = pos;
        int end = stringEnd();
        if (end < 0 || !literal((byte) '"') || !literal((byte) '}')) {
          return false;
        }
        boolean optOut =
            end - start == OPTOUT.length && ByteScan.sameBytes(b, start, OPTOUT, 0, OPTOUT.length);
        reasons[i] =
            optOut ? OPTOUT_REASON : new String(b, start, end - start, StandardCharsets.UTF_8);
        previous[2 * i] = -1;
        previous[2 * i + 1] = -1;
      } else {
        return false;
      }
    }
    return literal((byte) ']');
  }

  /** The rest of a mapped entry after <code>{"u":"</code>. */
  private boolean mapped(int i, int[] offsets, int[] previous, long[] refresh) {
    int uStart = pos;
    int uEnd = idEnd();
    if (uEnd <= uStart || !literal(PREVIOUS)) { // none, or empty: left to the general parser
      return false;
    }
    offsets[4 * i] = uStart;
    offsets[4 * i + 1] = uEnd;
    offsets[4 * i + 2] = uEnd; // no bucket id on v3: an empty range
    offsets[4 * i + 3] = uEnd;
    if (literal(NULL)) {
      previous[2 * i] = -1;
      previous[2 * i + 1] = -1;
    } else if (literal((byte) '"')) {
      int pStart = pos;
      int pEnd = idEnd();
      if (pEnd <= pStart || !literal((byte) '"')) {
        return false;
      }
      previous[2 * i] = pStart;
      previous[2 * i + 1] = pEnd;
    } else {
      return false;
    }
    if (!literal(REFRESH)) {
      return false;
    }
    long seconds = digits();
    if (seconds < 0 || !literal((byte) '}')) {
      return false;
    }
    refresh[i] = seconds * 1000L;
    return true;
  }

  /**
   * A whole number as JSON writes it (no sign, no leading zero) of at most {@value
   * #MAX_REFRESH_DIGITS} digits; -1 if there is none here.
   */
  private long digits() {
    int start = pos;
    long v = 0;
    while (pos < b.length && b[pos] >= '0' && b[pos] <= '9' && pos - start < MAX_REFRESH_DIGITS) {
      v = v * 10 + (b[pos++] - '0');
    }
    int n = pos - start;
    boolean wellFormed = n == 1 || (n > 1 && b[start] != '0');
    boolean ended = pos < b.length && (b[pos] < '0' || b[pos] > '9');
    return wellFormed && ended ? v : -1;
  }
}
