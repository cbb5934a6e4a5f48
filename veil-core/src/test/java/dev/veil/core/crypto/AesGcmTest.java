package dev.veil.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HexFormat;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class AesGcmTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final SecretKeySpec ZERO_KEY = new SecretKeySpec(new byte[32], "AES");
  private static final SecretKeySpec OTHER_KEY = new SecretKeySpec(filled(32, 7), "AES");

  @Test
  void encrypt_matchesPublishedGcmTestCase14() {
    // GCM specification (McGrew and Viega), test case 14: 256-bit zero key, zero IV, one zero
    // block.
    byte[] out = new byte[32];

    int written = AesGcm.encrypt(ZERO_KEY, new byte[12], new byte[16], 0, 16, out, 0);

    assertThat(written).isEqualTo(32);
    assertThat(HEX.formatHex(out))
        .isEqualTo("cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919");
  }

  @Test
  void encrypt_withAad_matchesAFreshJdkCipher() throws Exception {
    byte[] iv = filled(12, 3);
    byte[] aad = {1, 2, 3, 4, 5, 6};
    byte[] plain = filled(100, 42);
    Cipher reference = Cipher.getInstance("AES/GCM/NoPadding");
    reference.init(Cipher.ENCRYPT_MODE, OTHER_KEY, new GCMParameterSpec(128, iv));
    reference.updateAAD(aad);
    byte[] expected = reference.doFinal(plain);

    byte[] out = new byte[5 + 116];
    int written = AesGcm.encrypt(OTHER_KEY, iv, aad, plain, 0, 100, out, 5);

    assertThat(written).isEqualTo(116);
    assertThat(Arrays.copyOfRange(out, 5, 121)).isEqualTo(expected);
  }

  @Test
  void encryptJoined_isTheEncryptionOfTheJoinedMessage_forHeadsOfAnyLength() {
    byte[] iv = filled(12, 5);
    byte[] plain = filled(300, 17);
    for (int headBytes : new int[] {0, 1, 15, 16, 17, 40}) {
      byte[] head = filled(headBytes, 99);
      byte[] joined = new byte[headBytes + 200];
      System.arraycopy(head, 0, joined, 0, headBytes);
      System.arraycopy(plain, 50, joined, headBytes, 200);
      byte[] expected = new byte[joined.length + 16];
      AesGcm.encrypt(OTHER_KEY, iv, joined, 0, joined.length, expected, 0);

      byte[] out = new byte[3 + expected.length];
      int written = AesGcm.encryptJoined(OTHER_KEY, iv, head, plain, 50, 200, out, 3);

      assertThat(written).as("head of %d bytes", headBytes).isEqualTo(expected.length);
      assertThat(Arrays.copyOfRange(out, 3, out.length))
          .as("head of %d bytes", headBytes)
          .isEqualTo(expected);
    }
  }

  @Test
  void encrypt_sameKeyAndIvTwiceInARow_givesSameBytesInsteadOfFailing() {
    byte[] iv = filled(12, 9);
    byte[] first = new byte[20];
    byte[] second = new byte[20];

    AesGcm.encrypt(OTHER_KEY, iv, new byte[4], 0, 4, first, 0);
    AesGcm.encrypt(OTHER_KEY, iv, new byte[4], 0, 4, second, 0);

    assertThat(second).isEqualTo(first);
  }

  @Test
  void decrypt_reversesEncrypt_withAndWithoutAad() throws Exception {
    byte[] iv = filled(12, 1);
    byte[] plain = filled(33, 5);
    byte[] aad = {9, 9};
    byte[] sealed = new byte[49];
    byte[] sealedWithAad = new byte[49];
    AesGcm.encrypt(OTHER_KEY, iv, plain, 0, 33, sealed, 0);
    AesGcm.encrypt(OTHER_KEY, iv, aad, plain, 0, 33, sealedWithAad, 0);

    assertThat(AesGcm.decrypt(OTHER_KEY, iv, sealed, 0, 49)).isEqualTo(plain);
    assertThat(AesGcm.decrypt(OTHER_KEY, iv, aad, sealedWithAad, 0, 49)).isEqualTo(plain);
    assertThat(sealedWithAad).isNotEqualTo(sealed);
  }

  @Test
  void decrypt_withWrongKeyIvAadOrAlteredByte_throwsBadTag() {
    byte[] iv = filled(12, 1);
    byte[] aad = {9, 9};
    byte[] sealed = new byte[26];
    AesGcm.encrypt(OTHER_KEY, iv, aad, filled(10, 4), 0, 10, sealed, 0);
    byte[] altered = sealed.clone();
    altered[25] ^= 1;

    assertThatThrownBy(() -> AesGcm.decrypt(ZERO_KEY, iv, aad, sealed, 0, 26))
        .isInstanceOf(AEADBadTagException.class);
    assertThatThrownBy(() -> AesGcm.decrypt(OTHER_KEY, filled(12, 2), aad, sealed, 0, 26))
        .isInstanceOf(AEADBadTagException.class);
    assertThatThrownBy(() -> AesGcm.decrypt(OTHER_KEY, iv, new byte[] {9, 8}, sealed, 0, 26))
        .isInstanceOf(AEADBadTagException.class);
    assertThatThrownBy(() -> AesGcm.decrypt(OTHER_KEY, iv, sealed, 0, 26))
        .isInstanceOf(AEADBadTagException.class);
    assertThatThrownBy(() -> AesGcm.decrypt(OTHER_KEY, iv, aad, altered, 0, 26))
        .isInstanceOf(AEADBadTagException.class);
  }

  @Test
  void decrypt_inputShorterThanTag_throwsBadTag() {
    assertThatThrownBy(() -> AesGcm.decrypt(OTHER_KEY, new byte[12], new byte[15], 0, 15))
        .isInstanceOf(AEADBadTagException.class);
  }

  @Test
  void wrongIvLength_isRejectedAsIllegalArgument() {
    assertThatThrownBy(
            () -> AesGcm.encrypt(OTHER_KEY, new byte[16], new byte[1], 0, 1, new byte[17], 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AesGcm.decrypt(OTHER_KEY, new byte[8], new byte[17], 0, 17))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void encrypt_intoTooSmallOutput_isRejectedAsIllegalArgument() {
    assertThatThrownBy(
            () -> AesGcm.encrypt(OTHER_KEY, new byte[12], new byte[10], 0, 10, new byte[25], 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static byte[] filled(int length, int value) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, (byte) value);
    return bytes;
  }
}
