package dev.veil.core.text;

/**
 * Checks that bytes are well-formed UTF-8 as Unicode defines it (the table of well-formed byte
 * sequences, Unicode 15 section 3.9): no overlong forms, no surrogates (U+D800 to U+DFFF), nothing
 * above U+10FFFF, no stray or missing continuation bytes. Runs of ASCII, nearly all of any JSON
 * body, are skipped eight bytes at a time ({@link ByteScan#nonAscii}). Thread-safe (no state).
 */
public final class Utf8 {
  private Utf8() {}

  /**
   * Where bytes {@code [from, to)} stop being well-formed UTF-8 (the start of the bad sequence), or
   * -1.
   */
  public static int malformedAt(byte[] b, int from, int to) {
    int i = from;
    while (true) {
      int at = ByteScan.nonAscii(b, i, to);
      if (at < 0) {
        return -1;
      }
      int length = sequenceLength(b, at, to);
      if (length == 0) {
        return at;
      }
      i = at + length;
    }
  }

  /**
   * The length of the well-formed sequence that starts at {@code i} with a lead byte of 0x80 or
   * above, or 0.
   */
  private static int sequenceLength(byte[] b, int i, int to) {
    int lead = b[i] & 0xFF;
    int length;
    int low = 0x80; // the second byte's range, narrowed for the leads that would allow overlongs,
    int high = 0xBF; // surrogates or code points above U+10FFFF
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) {
        low = 0xA0;
      } else if (lead == 0xED) {
        high = 0x9F;
      }
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) {
        low = 0x90;
      } else if (lead == 0xF4) {
        high = 0x8F;
      }
    } else {
      return 0; // a continuation byte without a lead, C0, C1 (overlong), F5 to FF
    }
    if (i + length > to) {
      return 0;
    }
    int second = b[i + 1] & 0xFF;
    if (second < low || second > high) {
      return 0;
    }
    for (int k = 2; k < length; k++) {
      if ((b[i + k] & 0xC0) != 0x80) {
        return 0;
      }
    }
    return length;
  }
}
