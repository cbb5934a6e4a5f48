package dev.veil.core.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tokens from any V4 writer: Veil's codec, and a writer as UID2's sharing SDKs write (raw ids of
 * other lengths, privacy bits without the prefix), built here byte by byte from the layout.
 */
class SharedTokenDecoderTest {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Instant CREATED = Instant.parse("2025-06-01T10:00:00Z");
  private final AdvertisingTokenCodec codec = new AdvertisingTokenCodec(NonceSource.secure());

  @ParameterizedTest
  @EnumSource(IdentityType.class)
  void veilsOwnTokens_readAsTheCodecReadsThem(IdentityType type) {
    AdvertisingTokenPayload p = Payloads.advertising(type, TestKeys.SITE);

    SharedToken read =
        SharedTokenDecoder.decode(
            codec.encode(p, TestKeys.MASTER, TestKeys.SITE_KEY), TestKeys.ALL);

    assertThat(read.identityType()).isEqualTo(type);
    assertThat(read.rawId()).isEqualTo(p.advertisingId());
    assertThat(read.siteId()).isEqualTo(TestKeys.SITE);
    assertThat(read.siteKeyId()).isEqualTo(TestKeys.SITE_KEY.id());
    assertThat(read.expires()).isEqualTo(p.expires());
    assertThat(read.created()).isEqualTo(p.created());
    assertThat(read.privacyBits()).isEqualTo(p.privacyBits());
  }

  @ParameterizedTest
  @ValueSource(ints = {32, 33, 64})
  void anotherWritersTokens_withRawIdsOf32To64Bytes_inEitherBase64(int idLength) throws Exception {
    byte[] id = new byte[idLength];
    RANDOM.nextBytes(id);
    byte[] token = foreignToken(IdentityType.EMAIL, 0x02, id);

    for (String text :
        new String[] {
          Base64.getUrlEncoder().withoutPadding().encodeToString(token),
          Base64.getEncoder().encodeToString(token)
        }) {
      SharedToken read = SharedTokenDecoder.decode(text, TestKeys.ALL);
      assertThat(read.rawId()).isEqualTo(id);
      assertThat(read.privacyBits()).isEqualTo(0x02);
      assertThat(read.created()).isEqualTo(CREATED);
      assertThat(read.siteId()).isEqualTo(TestKeys.SITE);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {31, 65})
  void rawIdsOutside32To64Bytes_areMalformed(int idLength) throws Exception {
    String text =
        Base64.getEncoder().encodeToString(foreignToken(IdentityType.EMAIL, 0, new byte[idLength]));

    assertThatThrownBy(() -> SharedTokenDecoder.decode(text, TestKeys.ALL))
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED));
  }

  @Test
  void spellingsOtherThanTheTwoCanonicalOnes_areMalformed() {
    String token =
        codec.encode(
            Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE),
            TestKeys.MASTER,
            TestKeys.SITE_KEY);
    byte[] bytes = Base64.getUrlDecoder().decode(token);
    char last = token.charAt(token.length() - 1);
    String lowBitsChanged =
        token.substring(0, token.length() - 1) + (char) (last == 'A' ? 'B' : last ^ 1);

    assertThat(SharedTokenDecoder.decode(Base64.getEncoder().encodeToString(bytes), TestKeys.ALL))
        .isNotNull();
    for (String bad :
        new String[] {
          Base64.getUrlEncoder().encodeToString(bytes),
          Base64.getEncoder().withoutPadding().encodeToString(bytes),
          lowBitsChanged
        }) {
      assertReason(() -> SharedTokenDecoder.decode(bad, TestKeys.ALL), Reason.MALFORMED);
    }
  }

  @Test
  void aVeilTokenWhosePrefixWasChanged_isStillTampered() {
    String token =
        codec.encode(
            Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE),
            TestKeys.MASTER,
            TestKeys.SITE_KEY);
    byte[] bytes = Base64.getUrlDecoder().decode(token);
    bytes[0] = IdentityType.PHONE.prefix();
    String changed = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);

    assertThatThrownBy(() -> SharedTokenDecoder.decode(changed, TestKeys.ALL))
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
  }

  @Test
  void everyChangedByte_isRefused_neverAnotherException() throws Exception {
    byte[] token = foreignToken(IdentityType.PHONE, 0, new byte[33]);
    for (int i = 0; i < token.length; i++) {
      byte[] changed = token.clone();
      changed[i] ^= 0x01;
      String text = Base64.getEncoder().encodeToString(changed);
      assertThatThrownBy(() -> SharedTokenDecoder.decode(text, TestKeys.ALL))
          .as("byte %d", i)
          .isInstanceOf(InvalidTokenException.class);
    }
  }

  @Test
  void unknownKeys_andTextThatIsNotBase64_areNamed() throws Exception {
    String token =
        Base64.getEncoder().encodeToString(foreignToken(IdentityType.EMAIL, 0, new byte[33]));
    assertThatThrownBy(() -> SharedTokenDecoder.decode(token, keyId -> null))
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_KEY));
    for (String bad : new String[] {"", "not a token!", "A".repeat(10_000)}) {
      assertThatThrownBy(() -> SharedTokenDecoder.decode(bad, TestKeys.ALL))
          .isInstanceOfSatisfying(
              InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED));
    }
  }

  @Test
  void byKeyIdOnly_readsWithKeysOfNoKnownKeyset_whichTheCheckedDecodeRefuses() {
    AdvertisingTokenPayload p = Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE);
    String token = codec.encode(p, TestKeys.MASTER, TestKeys.SITE_KEY);
    KeyLookup byIdOnly =
        id -> {
          EncryptionKey k = TestKeys.ALL.byId(id);
          return k == null
              ? null
              : new EncryptionKey(k.id(), 0, k.created(), k.activates(), k.expires(), k.secret());
        };

    assertThat(SharedTokenDecoder.decodeByKeyIdOnly(token, byIdOnly).rawId())
        .isEqualTo(p.advertisingId());
    assertThatThrownBy(() -> SharedTokenDecoder.decode(token, byIdOnly))
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
  }

  @Test
  void byKeyIdOnly_keepsEveryOtherCheck() throws Exception {
    String token =
        codec.encode(
            Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE),
            TestKeys.MASTER,
            TestKeys.SITE_KEY);
    byte[] flipped = Base64.getUrlDecoder().decode(token);
    flipped[100] ^= 1;
    byte[] otherPrefix = Base64.getUrlDecoder().decode(token);
    otherPrefix[0] = IdentityType.PHONE.prefix();

    assertReason(
        () ->
            SharedTokenDecoder.decodeByKeyIdOnly(token, TestKeys.allExcept(TestKeys.SITE_KEY.id())),
        Reason.UNKNOWN_KEY);
    assertReason(
        () -> SharedTokenDecoder.decodeByKeyIdOnly(url(flipped), TestKeys.ALL), Reason.TAMPERED);
    assertReason(
        () -> SharedTokenDecoder.decodeByKeyIdOnly(url(otherPrefix), TestKeys.ALL),
        Reason.TAMPERED);
    assertReason(
        () -> SharedTokenDecoder.decodeByKeyIdOnly(token.substring(1), TestKeys.ALL),
        Reason.MALFORMED);
  }

  private static String url(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static void assertReason(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Reason reason) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  /**
   * A V4 token as another writer makes it: the privacy field holds only {@code privacyBits}, the
   * operator fields are zero, and the raw id is {@code id}.
   */
  private static byte[] foreignToken(IdentityType type, int privacyBits, byte[] id)
      throws Exception {
    ByteBuffer site = ByteBuffer.allocate(36 + id.length);
    site.putInt(TestKeys.SITE).putLong(0).putInt(0).putInt(privacyBits);
    site.putLong(CREATED.toEpochMilli()).putLong(CREATED.toEpochMilli()).put(id);
    byte[] sealedSite = seal(TestKeys.SITE_KEY, site.array());
    ByteBuffer master = ByteBuffer.allocate(33 + sealedSite.length);
    master.putLong(CREATED.plusSeconds(3600).toEpochMilli()).putLong(CREATED.toEpochMilli());
    master.putInt(0).put((byte) 1).putInt(0).putInt(0).putInt(TestKeys.SITE_KEY.id());
    master.put(sealedSite);
    byte[] sealedMaster = seal(TestKeys.MASTER, master.array());
    ByteBuffer token = ByteBuffer.allocate(6 + sealedMaster.length);
    token.put(type.prefix()).put(AdvertisingTokenCodec.VERSION).putInt(TestKeys.MASTER.id());
    return token.put(sealedMaster).array();
  }

  private static byte[] seal(EncryptionKey key, byte[] plain) throws Exception {
    byte[] iv = new byte[12];
    RANDOM.nextBytes(iv);
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(
        Cipher.ENCRYPT_MODE, new SecretKeySpec(key.secret(), "AES"), new GCMParameterSpec(128, iv));
    byte[] sealed = c.doFinal(plain);
    byte[] out = Arrays.copyOf(iv, 12 + sealed.length);
    System.arraycopy(sealed, 0, out, 12, sealed.length);
    return out;
  }
}
