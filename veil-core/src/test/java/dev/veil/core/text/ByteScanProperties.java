package dev.veil.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.IntPredicate;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Each eight-bytes-at-a-time search finds exactly what a byte loop finds, wherever it starts and
 * ends.
 */
class ByteScanProperties {
  @Property(tries = 2000)
  void everySearch_findsTheFirstMatchingByte(
      @ForAll("bytes") byte[] b, @ForAll("cut") int a, @ForAll("cut") int c) {
    int from = Math.min(a, c) % (b.length + 1);
    int to = Math.max(from, Math.max(a, c) % (b.length + 1));

    assertThat(ByteScan.jsonSpecial(b, from, to))
        .isEqualTo(first(b, from, to, x -> x == '"' || x == '\\' || (x >= 0 && x < 0x20)));
    assertThat(ByteScan.jsonSpecialOrComma(b, from, to))
        .isEqualTo(
            first(b, from, to, x -> x == '"' || x == '\\' || x == ',' || (x >= 0 && x < 0x20)));
    assertThat(ByteScan.csvSpecial(b, from, to))
        .isEqualTo(first(b, from, to, x -> x == ',' || x == '"' || x == '\n' || x == '\r'));
    assertThat(ByteScan.lineEnd(b, from, to))
        .isEqualTo(first(b, from, to, x -> x == '\n' || x == '\r'));
    assertThat(ByteScan.nonAscii(b, from, to)).isEqualTo(first(b, from, to, x -> x < 0));
    for (byte wanted : new byte[] {'"', ',', '@', (byte) 0xFF, 0}) {
      assertThat(ByteScan.indexOf(b, from, to, wanted))
          .isEqualTo(first(b, from, to, x -> x == wanted));
    }
  }

  @Property(tries = 2000)
  void soleAt_isWhatAByteLoopFinds(
      @ForAll("bytes") byte[] b, @ForAll("cut") int a, @ForAll("cut") int c) {
    int from = Math.min(a, c) % (b.length + 1);
    int to = Math.max(from, Math.max(a, c) % (b.length + 1));
    int expected;
    if (first(b, from, to, x -> x < 0) >= 0) {
      expected = ByteScan.NOT_ASCII;
    } else if (first(b, from, to, x -> x <= ' ' || x == 0x7F) >= 0) {
      expected = ByteScan.CONTROL_OR_SPACE;
    } else {
      int at = first(b, from, to, x -> x == '@');
      expected = at >= 0 && first(b, at + 1, to, x -> x == '@') < 0 ? at : ByteScan.NOT_ONE_AT;
    }

    assertThat(ByteScan.soleAt(b, from, to)).isEqualTo(expected);
  }

  @Property(tries = 2000)
  void sameBytes_isArraysEquals(
      @ForAll("bytes") byte[] a,
      @ForAll("cut") int from,
      @ForAll("cut") int len,
      @ForAll("cut") int otherFrom,
      @ForAll boolean copy) {
    int aFrom = from % (a.length + 1);
    int length = len % (a.length - aFrom + 1);
    byte[] b = new byte[otherFrom + length + 3];
    if (copy) {
      System.arraycopy(
          a, aFrom, b, otherFrom, length); // equal ranges, so that "true" is tested too
    } else {
      java.util.Arrays.fill(b, (byte) 'a');
    }
    boolean expected =
        java.util.Arrays.equals(a, aFrom, aFrom + length, b, otherFrom, otherFrom + length);

    assertThat(ByteScan.sameBytes(a, aFrom, b, otherFrom, length)).isEqualTo(expected);
    if (copy && length > 0) {
      b[otherFrom + (len * 31 + otherFrom) % length] ^= 0x10; // one byte differs, anywhere
      assertThat(ByteScan.sameBytes(a, aFrom, b, otherFrom, length)).isFalse();
    }
  }

  @Property(tries = 2000)
  void copyIfPlainCsv_copiesExactlyTheFieldsThatNeedNoQuotes(
      @ForAll("bytes") byte[] src,
      @ForAll("cut") int a,
      @ForAll("cut") int c,
      @ForAll("cut") int at) {
    int from = Math.min(a, c) % (src.length + 1);
    int length = Math.max(from, Math.max(a, c) % (src.length + 1)) - from;
    byte[] dst = new byte[at + length + 5];
    java.util.Arrays.fill(dst, (byte) 'z');
    boolean plain = ByteScan.csvSpecial(src, from, from + length) < 0;

    int end = ByteScan.copyIfPlainCsv(src, from, length, dst, at);

    if (plain) {
      byte[] expected = new byte[dst.length];
      java.util.Arrays.fill(expected, (byte) 'z');
      System.arraycopy(src, from, expected, at, length);
      assertThat(end).isEqualTo(at + length);
      assertThat(dst)
          .isEqualTo(expected); // the field's bytes in place, nothing written before or after
    } else {
      assertThat(end).isEqualTo(-1);
    }
  }

  @Property(tries = 2000)
  void copyAscii_copiesAndTellsWhetherAllAreAscii(
      @ForAll("bytes") byte[] src,
      @ForAll("cut") int a,
      @ForAll("cut") int c,
      @ForAll("cut") int at) {
    int from = Math.min(a, c) % (src.length + 1);
    int length = Math.max(from, Math.max(a, c) % (src.length + 1)) - from;
    byte[] dst = new byte[at + length + 5];
    java.util.Arrays.fill(dst, (byte) 'z');
    byte[] expected = dst.clone();
    System.arraycopy(src, from, expected, at, length);

    boolean ascii = ByteScan.copyAscii(src, from, length, dst, at);

    assertThat(ascii).isEqualTo(ByteScan.nonAscii(src, from, from + length) < 0);
    assertThat(dst).isEqualTo(expected);
  }

  @Property(tries = 2000)
  void lineShape_isWhatAByteLoopSees(
      @ForAll("bytes") byte[] b, @ForAll("cut") int a, @ForAll("cut") int c) {
    int from = Math.min(a, c) % (b.length + 1);
    int to = Math.max(from, Math.max(a, c) % (b.length + 1));
    int expected =
        (first(b, from, to, x -> x == ',') >= 0 ? ByteScan.COMMA : 0)
            | (first(b, from, to, x -> x == '"') >= 0 ? ByteScan.QUOTE : 0)
            | (first(b, from, to, x -> x < 0) >= 0 ? ByteScan.NON_ASCII : 0)
            | (first(b, from, to, x -> x == '@') >= 0 ? ByteScan.AT : 0);

    assertThat(ByteScan.lineShape(b, from, to)).isEqualTo(expected);
  }

  @org.junit.jupiter.api.Test
  void sameBytes_checksItsRanges() {
    byte[] a = new byte[10];
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ByteScan.sameBytes(a, 5, a, 0, 6))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  private static int first(byte[] b, int from, int to, IntPredicate match) {
    for (int i = from; i < to; i++) {
      if (match.test(b[i])) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Mostly ordinary letters, with every special byte and its neighbours (one above, one below)
   * mixed in.
   */
  @Provide
  Arbitrary<byte[]> bytes() {
    Arbitrary<Byte> ordinary = Arbitraries.bytes().between((byte) 'a', (byte) 'z');
    Arbitrary<Byte> special =
        Arbitraries.of(
            (byte) '"',
            (byte) '#',
            (byte) '!',
            (byte) '\\',
            (byte) ']',
            (byte) '[',
            (byte) 0x1F,
            (byte) 0x20,
            (byte) 0,
            (byte) ',',
            (byte) '-',
            (byte) '+',
            (byte) '\n',
            (byte) 0x0B,
            (byte) 0x09,
            (byte) '\r',
            (byte) 0x0C,
            (byte) 0x0E,
            (byte) 0x7F,
            (byte) '@',
            (byte) '@',
            (byte) 'A',
            (byte) 0x21,
            (byte) 0xC0,
            (byte) 0x80,
            (byte) 0xFF,
            (byte) 0xA2,
            (byte) 0xDC);
    return Arbitraries.frequencyOf(Tuple.of(8, ordinary), Tuple.of(1, special))
        .array(byte[].class)
        .ofMaxSize(70);
  }

  @Provide
  Arbitrary<Integer> cut() {
    return Arbitraries.integers().between(0, 80);
  }
}
