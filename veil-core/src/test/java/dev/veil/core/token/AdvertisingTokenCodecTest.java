package dev.veil.core.token;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AdvertisingTokenCodecTest {
  private final AdvertisingTokenCodec codec = new AdvertisingTokenCodec(NonceSource.secure());
  private final AdvertisingTokenPayload payload =
      Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE);

  @ParameterizedTest
  @EnumSource(IdentityType.class)
  void encodeThenDecode_givesThePayloadBack(IdentityType type) {
    AdvertisingTokenPayload original = Payloads.advertising(type, TestKeys.SITE);

    String token = codec.encode(original, TestKeys.MASTER, TestKeys.SITE_KEY);

    assertThat(codec.decode(token, TestKeys.ALL)).isEqualTo(original);
  }

  @Test
  void encode_isUnpaddedBase64UrlWithTheClearHeaderFirst() {
    String token = codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY);
    byte[] bytes = Base64.getUrlDecoder().decode(token);

    assertThat(token).hasSize(AdvertisingTokenCodec.TOKEN_CHARS).matches("[A-Za-z0-9_-]+");
    assertThat(bytes).hasSize(AdvertisingTokenCodec.TOKEN_BYTES);
    assertThat(bytes[0]).isEqualTo((byte) 0x03);
    assertThat(bytes[1]).isEqualTo((byte) 0x80);
    assertThat(ByteBuffer.wrap(bytes, 2, 4).getInt()).isEqualTo(TestKeys.MASTER.id());
  }

  @Test
  void encode_samePayloadTwice_givesDifferentTokens() {
    assertThat(codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY))
        .isNotEqualTo(codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY));
  }

  @Test
  void encode_drawsOuterIvFirstThenInnerIv() throws Exception {
    byte[] outerIv = Payloads.filled(12, 1);
    byte[] innerIv = Payloads.filled(12, 2);
    AdvertisingTokenCodec fixed =
        new AdvertisingTokenCodec(new FixedNonces(List.of(outerIv, innerIv)));

    byte[] bytes =
        Base64.getUrlDecoder().decode(fixed.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY));

    assertThat(ByteBuffer.wrap(bytes, 6, 12)).isEqualTo(ByteBuffer.wrap(outerIv));
    byte[] outerPlain = RawGcm.decrypt(TestKeys.MASTER, bytes, 6, 157);
    assertThat(ByteBuffer.wrap(outerPlain, 33, 12)).isEqualTo(ByteBuffer.wrap(innerIv));
  }

  @Test
  void decode_ignoresExpiry() {
    AdvertisingTokenPayload expired =
        new AdvertisingTokenPayload(
            IdentityType.PHONE,
            Payloads.NOW.minusSeconds(1),
            Payloads.NOW.minusSeconds(99),
            payload.operator(),
            payload.publisher(),
            0,
            Payloads.NOW,
            Payloads.NOW,
            payload.advertisingId());

    String token = codec.encode(expired, TestKeys.MASTER, TestKeys.SITE_KEY);

    assertThat(codec.decode(token, TestKeys.ALL).expires()).isEqualTo(Payloads.NOW.minusSeconds(1));
  }

  @Test
  void decode_unknownMasterOrSiteKey_isUnknownKey() {
    String token = codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY);

    assertRejected(
        () -> codec.decode(token, TestKeys.allExcept(TestKeys.MASTER.id())), Reason.UNKNOWN_KEY);
    assertRejected(
        () -> codec.decode(token, TestKeys.allExcept(TestKeys.SITE_KEY.id())), Reason.UNKNOWN_KEY);
  }

  @Test
  void decode_masterKeyIdThatIsNotAMasterKey_isTampered() {
    String token = codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY);
    EncryptionKey sameSecretOtherKeyset =
        new EncryptionKey(
            TestKeys.MASTER.id(),
            TestKeys.SITE,
            TestKeys.MASTER.created(),
            TestKeys.MASTER.activates(),
            TestKeys.MASTER.expires(),
            TestKeys.MASTER.secret());

    assertRejected(
        () -> codec.decode(token, TestKeys.replacing(TestKeys.MASTER.id(), sameSecretOtherKeyset)),
        Reason.TAMPERED);
  }

  @Test
  void decode_siteKeyOfAnotherSiteOrReservedKeyset_isTampered() {
    String token = codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY);
    EncryptionKey k = TestKeys.SITE_KEY;
    EncryptionKey otherSite =
        new EncryptionKey(
            k.id(), TestKeys.OTHER_SITE, k.created(), k.activates(), k.expires(), k.secret());
    EncryptionKey refreshKeyset =
        new EncryptionKey(
            k.id(),
            EncryptionKey.REFRESH_SITE_ID,
            k.created(),
            k.activates(),
            k.expires(),
            k.secret());

    assertRejected(
        () -> codec.decode(token, TestKeys.replacing(k.id(), otherSite)), Reason.TAMPERED);
    assertRejected(
        () -> codec.decode(token, TestKeys.replacing(k.id(), refreshKeyset)), Reason.TAMPERED);
  }

  @Test
  void decode_otherVersionByte_isUnsupportedVersion() {
    byte[] bytes = decode(codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY));
    bytes[1] = 0x70;

    assertRejected(() -> codec.decode(encode(bytes), TestKeys.ALL), Reason.UNSUPPORTED_VERSION);
  }

  @Test
  void decode_unknownPrefix_isMalformed() {
    byte[] bytes = decode(codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY));
    bytes[0] = 0x13;

    assertRejected(() -> codec.decode(encode(bytes), TestKeys.ALL), Reason.MALFORMED);
  }

  @Test
  void decode_prefixFlippedBetweenEmailAndPhone_isTampered() {
    byte[] bytes = decode(codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY));
    bytes[0] = IdentityType.PHONE.prefix();

    assertRejected(() -> codec.decode(encode(bytes), TestKeys.ALL), Reason.TAMPERED);
  }

  @Test
  void decode_otherSpellingsOfTheSameBytes_areMalformed() {
    String token = codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY);
    byte[] bytes = decode(token);

    assertRejected(() -> codec.decode(null, TestKeys.ALL), Reason.MALFORMED);
    assertRejected(() -> codec.decode("", TestKeys.ALL), Reason.MALFORMED);
    assertRejected(() -> codec.decode(token + "==", TestKeys.ALL), Reason.MALFORMED);
    assertRejected(
        () -> codec.decode(Base64.getEncoder().encodeToString(bytes), TestKeys.ALL),
        Reason.MALFORMED);
    assertRejected(() -> codec.decode(" " + token.substring(1), TestKeys.ALL), Reason.MALFORMED);
    assertRejected(
        () -> codec.decode(token.substring(0, 217) + nonCanonicalLastChar(token), TestKeys.ALL),
        Reason.MALFORMED);
  }

  @Test
  void decode_refreshToken_isMalformed() {
    String refresh =
        new RefreshTokenCodec(NonceSource.secure())
            .encode(Payloads.refresh(IdentityType.EMAIL), TestKeys.REFRESH);

    assertRejected(() -> codec.decode(refresh, TestKeys.ALL), Reason.MALFORMED);
  }

  @Test
  void decode_outerLayerRewrappedWithAnotherPrefix_isRejectedByTheInnerLayer() throws Exception {
    // A bidder holds the master key and could re-encrypt the outer layer; the prefix is also in
    // the inner layer (top byte of the privacy bits), so it cannot turn an email token into a
    // phone token.
    byte[] bytes = decode(codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY));
    byte[] outerPlain = RawGcm.decrypt(TestKeys.MASTER, bytes, 6, 157);
    bytes[0] = IdentityType.PHONE.prefix();
    RawGcm.encryptInto(TestKeys.MASTER, outerPlain, bytes, 6);

    assertRejected(() -> codec.decode(encode(bytes), TestKeys.ALL), Reason.TAMPERED);
  }

  @Test
  void decode_outerLayerRewrappedWithAnotherSiteKeyId_isRejected() throws Exception {
    byte[] bytes = decode(codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY));
    byte[] outerPlain = RawGcm.decrypt(TestKeys.MASTER, bytes, 6, 157);
    ByteBuffer.wrap(outerPlain).putInt(29, TestKeys.SITE_KEY_2.id());
    RawGcm.encryptInto(TestKeys.MASTER, outerPlain, bytes, 6);

    assertRejected(() -> codec.decode(encode(bytes), TestKeys.ALL), Reason.TAMPERED);
  }

  @Test
  void decode_innerLayerSealedWithTheMasterKey_isTampered() throws Exception {
    // Bidders hold the master key. Without the keyset check they could forge a whole token by
    // naming the master key as "site key" and writing the master site id inside.
    byte[] bytes = decode(codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY));
    byte[] outerPlain = RawGcm.decrypt(TestKeys.MASTER, bytes, 6, 157);
    byte[] innerPlain = RawGcm.decrypt(TestKeys.SITE_KEY, outerPlain, 33, 96);
    ByteBuffer.wrap(innerPlain).putInt(0, EncryptionKey.MASTER_SITE_ID);
    ByteBuffer.wrap(outerPlain).putInt(29, TestKeys.MASTER.id());
    RawGcm.encryptInto(TestKeys.MASTER, innerPlain, outerPlain, 33);
    RawGcm.encryptInto(TestKeys.MASTER, outerPlain, bytes, 6);

    assertRejected(() -> codec.decode(encode(bytes), TestKeys.ALL), Reason.TAMPERED);
  }

  @Test
  void encode_withKeysFromTheWrongKeysets_isRejected() {
    assertThatThrownBy(() -> codec.encode(payload, TestKeys.SITE_KEY, TestKeys.SITE_KEY))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> codec.encode(payload, TestKeys.MASTER, TestKeys.OTHER_SITE_KEY))
        .isInstanceOf(IllegalArgumentException.class);
    AdvertisingTokenPayload reservedSite =
        Payloads.advertising(IdentityType.EMAIL, EncryptionKey.MASTER_SITE_ID);
    assertThatThrownBy(() -> codec.encode(reservedSite, TestKeys.MASTER, TestKeys.MASTER))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejection_neitherShowsTheTokenNorCarriesAStackTrace() {
    String token = codec.encode(payload, TestKeys.MASTER, TestKeys.SITE_KEY);

    assertThatThrownBy(() -> codec.decode(token, TestKeys.allExcept(TestKeys.MASTER.id())))
        .isInstanceOfSatisfying(
            InvalidTokenException.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo("invalid token: unknown_key")
                  .doesNotContain(token.substring(0, 10));
              assertThat(e.getStackTrace()).isEmpty();
            });
  }

  static void assertRejected(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable decode, Reason reason) {
    assertThatThrownBy(decode)
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  private static char nonCanonicalLastChar(String token) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    return alphabet.charAt(alphabet.indexOf(token.charAt(217)) | 1);
  }

  static byte[] decode(String token) {
    return Base64.getUrlDecoder().decode(token);
  }

  static String encode(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * Plain JCA, independent of the code under test. Advertising tokens use no AAD; the overloads
   * with {@code aad} serve refresh tokens.
   */
  static final class RawGcm {
    private static final ByteBuffer NO_AAD = ByteBuffer.allocate(0);

    private RawGcm() {}

    /** Opens the segment {@code in[off, off+len)}: IV, ciphertext, tag. */
    static byte[] decrypt(EncryptionKey key, byte[] in, int off, int len) throws Exception {
      return decrypt(key, in, off, len, NO_AAD);
    }

    static byte[] decrypt(EncryptionKey key, byte[] in, int off, int len, ByteBuffer aad)
        throws Exception {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key.spec(), new GCMParameterSpec(128, in, off, 12));
      cipher.updateAAD(aad.duplicate());
      return cipher.doFinal(in, off + 12, len - 12);
    }

    /**
     * Encrypts with the IV already at {@code out[off, off+12)}, writing ciphertext and tag after
     * it.
     */
    static void encryptInto(EncryptionKey key, byte[] plain, byte[] out, int off) throws Exception {
      encryptInto(key, plain, out, off, NO_AAD);
    }

    static void encryptInto(EncryptionKey key, byte[] plain, byte[] out, int off, ByteBuffer aad)
        throws Exception {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key.spec(), new GCMParameterSpec(128, out, off, 12));
      cipher.updateAAD(aad.duplicate());
      cipher.doFinal(plain, 0, plain.length, out, off + 12);
    }
  }
}
