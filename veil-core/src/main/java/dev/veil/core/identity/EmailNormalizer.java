package dev.veil.core.identity;

import dev.veil.core.text.ByteScan;
import java.util.Optional;

/**
 * Normalizes email addresses before hashing (docs/spec.md section 2), so that every spelling of an
 * address yields the same identity hash.
 *
 * <p>Rules, in order:
 *
 * <ol>
 *   <li>Leading and trailing ASCII whitespace (space, tab, LF, VT, FF, CR) is removed.
 *   <li>What remains must be at most {@value #MAX_LENGTH} characters (UTF-16 code units).
 *   <li>It must contain no whitespace or space separator, no control character, no Unicode format
 *       character (such as U+200B zero-width space or U+FEFF) and no unpaired surrogate. Other
 *       non-ASCII characters are allowed and kept as they are.
 *   <li>ASCII letters {@code A-Z} become lowercase; no other character is case-folded.
 *   <li>There must be exactly one {@code @}, with a non-empty local part before it and a non-empty
 *       domain after it. Nothing else about the domain or local part is checked.
 *   <li>For the domain {@code gmail.com} only, the local part loses everything from its first
 *       {@code +} on and then every {@code .}; if that leaves it empty the address is invalid.
 * </ol>
 *
 * <p>The result satisfies every rule unchanged, so {@code normalize(normalize(x)) == normalize(x)}.
 * Thread-safe.
 */
public final class EmailNormalizer {
  /** Longest accepted address after trimming, in characters (the SMTP path limit). */
  public static final int MAX_LENGTH = 254;

  private static final String GMAIL = "gmail.com";

  private EmailNormalizer() {}

  /** Index of the first character that trimming keeps (the length when none is kept). */
  private static int trimmedStart(String raw) {
    int start = 0;
    while (start < raw.length() && isTrimmed(raw.charAt(start))) {
      start++;
    }
    return start;
  }

  /** End (exclusive) of what trimming keeps, given its {@link #trimmedStart}. */
  private static int trimmedEnd(String raw, int start) {
    int end = raw.length();
    while (end > start && isTrimmed(raw.charAt(end - 1))) {
      end--;
    }
    return end;
  }

  /** The normalized address, or empty when {@code raw} is not a valid address (or is null). */
  public static Optional<String> normalize(String raw) {
    if (raw == null) {
      return Optional.empty();
    }
    int start = trimmedStart(raw);
    int end = trimmedEnd(raw, start);
    if (end - start > MAX_LENGTH) {
      return Optional.empty();
    }
    String lowered = lowerCaseAsciiIfClean(raw, start, end);
    if (lowered == null) {
      return Optional.empty();
    }
    return splitAndRewrite(lowered);
  }

  /**
   * Whether {@link #normalize} accepts {@code raw}, without building the normal form: the same
   * rules, checked in one pass that allocates nothing (clients check millions of addresses before
   * sending them).
   */
  public static boolean isValid(String raw) {
    if (raw == null) {
      return false;
    }
    int start = trimmedStart(raw);
    int end = trimmedEnd(raw, start);
    if (end - start > MAX_LENGTH) {
      return false;
    }
    int at = -1;
    for (int i = start; i < end; i++) {
      char c = raw.charAt(i);
      if (c < 0x80) {
        if (c <= ' ' || c == 0x7F) {
          return false;
        }
        if (c == '@') {
          if (at >= 0) {
            return false;
          }
          at = i;
        }
      } else if (Character.isHighSurrogate(c)
          && i + 1 < end
          && Character.isLowSurrogate(raw.charAt(i + 1))) {
        if (isForbidden(Character.toCodePoint(c, raw.charAt(++i)))) {
          return false;
        }
      } else if (Character.isSurrogate(c) || isForbidden(c)) {
        return false;
      }
    }
    if (at <= start || at == end - 1) {
      return false;
    }
    if (end - at - 1 != GMAIL.length() || !isAsciiGmail(raw, at + 1)) {
      return true;
    }
    for (int i = start; i < at && raw.charAt(i) != '+'; i++) {
      if (raw.charAt(i) != '.') {
        return true;
      }
    }
    return false;
  }

  /**
   * {@link #isValid(String)} for an address given as ASCII bytes ({@code len} bytes from {@code
   * off}, each below 0x80): the same answer as for the string of those characters, without making
   * it. Bulk imports check addresses straight from the bytes of the file they read.
   *
   * @throws IllegalArgumentException if a byte is not ASCII
   */
  public static boolean isValidAscii(byte[] b, int off, int len) {
    int start = off;
    int end = off + len;
    while (start < end && isTrimmed((char) b[start])) {
      start++;
    }
    while (end > start && isTrimmed((char) b[end - 1])) {
      end--;
    }
    int at = ByteScan.soleAt(b, start, end);
    if (at == ByteScan.NOT_ASCII) {
      throw new IllegalArgumentException("not ASCII");
    }
    if (end - start > MAX_LENGTH || at <= start || at == end - 1) {
      return false; // too long, a control character or space, no '@' or several, or one at either
      // end
    }
    if (end - at - 1 != GMAIL.length() || !isAsciiGmail(b, at + 1)) {
      return true;
    }
    for (int i = start; i < at && b[i] != '+'; i++) {
      if (b[i] != '.') {
        return true;
      }
    }
    return false;
  }

  private static boolean isAsciiGmail(byte[] b, int from) {
    for (int i = 0; i < GMAIL.length(); i++) {
      int c = b[from + i];
      if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != GMAIL.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether the nine characters from {@code from} spell gmail.com in ASCII letters of any case. */
  private static boolean isAsciiGmail(String raw, int from) {
    for (int i = 0; i < GMAIL.length(); i++) {
      char c = raw.charAt(from + i);
      char lower = c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
      if (lower != GMAIL.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** The lowered text, or null if it holds a forbidden character. */
  private static String lowerCaseAsciiIfClean(String raw, int start, int end) {
    if (isLowerCaseCleanAscii(raw, start, end)) {
      return raw.substring(
          start, end); // the common case: nothing to change, nothing copied if untrimmed
    }
    StringBuilder out = new StringBuilder(end - start);
    for (int i = start; i < end; i++) {
      char c = raw.charAt(i);
      if (c < 0x80) {
        if (c <= ' ' || c == 0x7F) {
          return null;
        }
        out.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
      } else if (Character.isHighSurrogate(c)
          && i + 1 < end
          && Character.isLowSurrogate(raw.charAt(i + 1))) {
        int codePoint = Character.toCodePoint(c, raw.charAt(i + 1));
        if (isForbidden(codePoint)) {
          return null;
        }
        out.append(c).append(raw.charAt(++i));
      } else if (Character.isSurrogate(c) || isForbidden(c)) {
        return null;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * Whether every character is printable ASCII other than an upper-case letter (then lowering
   * changes nothing).
   */
  private static boolean isLowerCaseCleanAscii(String raw, int start, int end) {
    for (int i = start; i < end; i++) {
      char c = raw.charAt(i);
      if (c <= ' ' || c >= 0x7F || (c >= 'A' && c <= 'Z')) {
        return false;
      }
    }
    return true;
  }

  private static Optional<String> splitAndRewrite(String address) {
    int at = address.indexOf('@');
    if (at <= 0 || at == address.length() - 1 || address.indexOf('@', at + 1) >= 0) {
      return Optional.empty();
    }
    boolean gmail =
        address.length() - at - 1 == GMAIL.length() && address.startsWith(GMAIL, at + 1);
    if (!gmail) {
      return Optional.of(address);
    }
    String local = gmailLocalPart(address.substring(0, at));
    return local.isEmpty() ? Optional.empty() : Optional.of(local + '@' + GMAIL);
  }

  private static String gmailLocalPart(String local) {
    int plus = local.indexOf('+');
    String beforePlus = plus >= 0 ? local.substring(0, plus) : local;
    return beforePlus.replace(".", "");
  }

  private static boolean isTrimmed(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
  }

  private static boolean isForbidden(int codePoint) {
    return Character.isISOControl(codePoint)
        || Character.isWhitespace(codePoint)
        || Character.isSpaceChar(codePoint)
        || Character.getType(codePoint) == Character.FORMAT;
  }
}
