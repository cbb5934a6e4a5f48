package dev.veil.common;

/**
 * Whether a name or title a person typed shows anything. {@link String#isBlank()} sees only Java
 * white space, so a client name of no-break spaces (U+00A0) or a deduction title of zero-width
 * spaces (U+200B) passed as text while printing as nothing. Here a string is blank when every code
 * point is one of:
 *
 * <ul>
 *   <li>white space: Java white space or a Unicode space, line or paragraph separator (Zs, Zl, Zp:
 *       U+00A0, U+2007, U+202F as well);
 *   <li>a format character (Cf: U+200B, U+200E, U+202E, U+2060, U+FEFF, tags, ...);
 *   <li>another default-ignorable code point, which Unicode says to render as nothing (Hangul
 *       fillers, variation selectors, the combining grapheme joiner; DerivedCoreProperties.txt).
 * </ul>
 */
public final class BlankText {
  private BlankText() {}

  /** True for the empty string and for one made only of invisible code points (see above). */
  public static boolean isBlank(String s) {
    return s.codePoints().allMatch(BlankText::isInvisible);
  }

  private static boolean isInvisible(int cp) {
    return Character.isWhitespace(cp)
        || Character.isSpaceChar(cp)
        || Character.getType(cp) == Character.FORMAT
        || isOtherDefaultIgnorable(cp);
  }

  /** Default_Ignorable_Code_Point (Unicode 15) outside category Cf. */
  private static boolean isOtherDefaultIgnorable(int cp) {
    return cp == 0x034F // combining grapheme joiner
        || cp == 0x115F
        || cp == 0x1160
        || cp == 0x3164
        || cp == 0xFFA0 // Hangul fillers
        || cp == 0x17B4
        || cp == 0x17B5 // Khmer inherent vowels
        || (cp >= 0x180B && cp <= 0x180F) // Mongolian variation selectors
        || cp == 0x2065
        || (cp >= 0xFFF0 && cp <= 0xFFF8) // reserved, ignorable
        || (cp >= 0xFE00 && cp <= 0xFE0F) // variation selectors
        || (cp >= 0xE0000 && cp <= 0xE0FFF); // tags, variation selectors supplement, reserved
  }
}
