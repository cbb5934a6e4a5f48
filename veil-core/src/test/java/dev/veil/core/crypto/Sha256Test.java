package dev.veil.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class Sha256Test {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void digest_ofAbc_matchesFips180Example() {
    byte[] digest = Sha256.digest("abc".getBytes(StandardCharsets.US_ASCII));

    assertThat(HEX.formatHex(digest))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }

  @Test
  void digest_ofEmptyInput_matchesKnownValue() {
    assertThat(HEX.formatHex(Sha256.digest(new byte[0])))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }

  @Test
  void digestOfTwoArrays_equalsDigestOfTheirConcatenation() {
    byte[] a = "ab".getBytes(StandardCharsets.US_ASCII);
    byte[] b = "c".getBytes(StandardCharsets.US_ASCII);

    assertThat(Sha256.digest(a, b))
        .isEqualTo(Sha256.digest("abc".getBytes(StandardCharsets.US_ASCII)));
  }

  @Test
  void digest_calledTwice_doesNotCarryStateOver() {
    byte[] input = {1, 2, 3};
    Sha256.digest(new byte[] {9}, new byte[] {8});

    assertThat(Sha256.digest(input)).isEqualTo(Sha256.digest(input)).hasSize(Sha256.BYTES);
  }
}
