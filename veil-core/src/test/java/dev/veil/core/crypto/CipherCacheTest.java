package dev.veil.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class CipherCacheTest {
  private final List<Cipher> created = new ArrayList<>();
  private final CipherCache cache = new CipherCache(3, this::newCipher);

  @Test
  void sameKey_getsTheSameCipher() {
    SecretKeySpec key = key(1);

    assertThat(cache.get(key)).isSameAs(cache.get(key));
    assertThat(created).hasSize(1);
  }

  @Test
  void moreKeysThanSlots_reuseTheCiphersAlreadyMade_insteadOfCreatingMore() {
    List<SecretKeySpec> keys = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      keys.add(key(i));
    }

    for (int round = 0; round < 50; round++) {
      for (SecretKeySpec key : keys) {
        assertThat(created).contains(cache.get(key));
      }
    }

    assertThat(created).hasSize(3);
  }

  @Test
  void theLeastRecentlyUsedKey_givesUpItsCipher() {
    SecretKeySpec a = key(1);
    SecretKeySpec b = key(2);
    SecretKeySpec c = key(3);
    Cipher ofA = cache.get(a);
    Cipher ofB = cache.get(b);
    Cipher ofC = cache.get(c);
    cache.get(a);

    Cipher ofD = cache.get(key(4));

    assertThat(ofD).isSameAs(ofB);
    assertThat(cache.get(a)).isSameAs(ofA);
    assertThat(cache.get(c)).isSameAs(ofC);
  }

  @Test
  void aRecycledCipher_encryptsUnderItsNewKey() throws Exception {
    CipherCache one = new CipherCache(1, this::newCipher);
    byte[] out = new byte[32];
    // The cipher of key 1, handed out again for key 2 and re-keyed, gives key 2's output.
    Cipher cipher = one.get(key(1));
    cipher.init(Cipher.ENCRYPT_MODE, key(1), new GCMParameterSpec(128, new byte[12]));
    cipher.doFinal(new byte[16], 0, 16, out, 0);

    Cipher again = one.get(key(2));
    again.init(Cipher.ENCRYPT_MODE, key(2), new GCMParameterSpec(128, new byte[12]));
    byte[] recycled = again.doFinal(new byte[16]);

    Cipher fresh = Cipher.getInstance("AES/GCM/NoPadding");
    fresh.init(Cipher.ENCRYPT_MODE, key(2), new GCMParameterSpec(128, new byte[12]));
    assertThat(again).isSameAs(cipher);
    assertThat(recycled).isEqualTo(fresh.doFinal(new byte[16]));
  }

  private Cipher newCipher() {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      created.add(cipher);
      return cipher;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static SecretKeySpec key(int fill) {
    byte[] bytes = new byte[32];
    Arrays.fill(bytes, (byte) fill);
    return new SecretKeySpec(bytes, "AES");
  }
}
