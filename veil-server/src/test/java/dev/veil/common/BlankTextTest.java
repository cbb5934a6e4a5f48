package dev.veil.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What counts as showing nothing in a name or title. */
class BlankTextTest {
  @Test
  void whiteSpaceFormatAndIgnorableCharacters_areBlank() {
    for (String blank :
        new String[] {
          "",
          " ",
          "\t\r\n",
          "\u00a0",
          "\u2007\u202f\u3000",
          "\u2028\u2029",
          "\u200b\u200c\u200d",
          "\u200e\u200f\u202a\u202e\u2066\u2069",
          "\u2060\ufeff\u00ad",
          "\uDB40\uDC01",
          "\u034f\ufe0f",
          "\u115f\u1160\u3164\uffa0",
          "\u180e"
        }) {
      assertThat(BlankText.isBlank(blank))
          .as("U+%04X...", blank.isEmpty() ? 0 : blank.codePointAt(0))
          .isTrue();
    }
  }

  @Test
  void anythingVisible_isNotBlank() {
    for (String text :
        new String[] {
          "a", " a ", "\u200ba", "\u00e9", "\uD83D\uDE00", "\u202eabc", "-", "\u3000x", "\u0301"
        }) {
      assertThat(BlankText.isBlank(text)).as(text).isFalse();
    }
  }
}
