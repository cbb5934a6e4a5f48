package dev.veil.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The UTF-8 check agrees with the JDK's strict decoder on every byte sequence, and finds where it
 * breaks.
 */
class Utf8Properties {
  @Property(tries = 5000)
  void malformedAt_agreesWithTheJdksStrictDecoder(@ForAll("text") byte[] b) {
    int at = Utf8.malformedAt(b, 0, b.length);

    assertThat(at < 0).as("well-formed").isEqualTo(decodes(b, 0, b.length));
    if (at >= 0) {
      assertThat(decodes(b, 0, at)).as("well-formed before " + at).isTrue();
    }
  }

  @Example
  void theSequencesAJsonParserLetThrough_areMalformed() {
    String[] bad = {
      "c181", "c0af", "e08080", "eda080", "edbfbf", "f4908080", "f5808080", "80", "c3", "e282", "ff"
    };
    for (String hex : bad) {
      byte[] b = hex(hex);
      assertThat(Utf8.malformedAt(b, 0, b.length)).as(hex).isZero();
    }
    String[] good = {"c280", "dfbf", "e0a080", "ed9fbf", "ee8080", "f0908080", "f48fbfbf", "7b7d"};
    for (String hex : good) {
      byte[] b = hex(hex);
      assertThat(Utf8.malformedAt(b, 0, b.length)).as(hex).isEqualTo(-1);
    }
  }

  /** Mostly ASCII with bytes of every kind mixed in, and well-formed non-ASCII characters. */
  @Provide
  Arbitrary<byte[]> text() {
    Arbitrary<byte[]> ascii =
        Arbitraries.bytes().between((byte) 0x20, (byte) 0x7E).array(byte[].class).ofMaxSize(12);
    Arbitrary<byte[]> any = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(4);
    Arbitrary<byte[]> character =
        Arbitraries.integers()
            .between(0x80, 0x10FFFF)
            .filter(c -> c < 0xD800 || c > 0xDFFF)
            .map(c -> new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8));
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(6, ascii),
            net.jqwik.api.Tuple.of(2, any),
            net.jqwik.api.Tuple.of(3, character))
        .list()
        .ofMaxSize(12)
        .map(
            parts -> {
              ByteBuffer out = ByteBuffer.allocate(parts.stream().mapToInt(p -> p.length).sum());
              parts.forEach(out::put);
              return out.array();
            });
  }

  private static boolean decodes(byte[] b, int from, int to) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b, from, to - from));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static byte[] hex(String hex) {
    byte[] b = new byte[hex.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }
}
