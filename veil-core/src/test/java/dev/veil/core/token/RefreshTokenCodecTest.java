package dev.veil.core.token;

import static dev.veil.core.token.AdvertisingTokenCodecTest.assertRejected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenCodecTest.RawGcm;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RefreshTokenCodecTest {
  private final RefreshTokenCodec codec = new RefreshTokenCodec(NonceSource.secure());
  private final RefreshTokenPayload payload = Payloads.refresh(IdentityType.EMAIL);

  @ParameterizedTest
  @EnumSource(IdentityType.class)
  void encodeThenDecode_givesThePayloadBack(IdentityType type) {
    RefreshTokenPayload original = Payloads.refresh(type);

    assertThat(codec.decode(codec.encode(original, TestKeys.REFRESH), TestKeys.ALL))
        .isEqualTo(original);
  }

  @Test
  void encode_isPaddedStandardBase64WithTheClearHeaderFirst() {
    String token = codec.encode(Payloads.refresh(IdentityType.PHONE), TestKeys.REFRESH);
    byte[] bytes = Base64.getDecoder().decode(token);

    assertThat(token).hasSize(RefreshTokenCodec.TOKEN_CHARS).matches("[A-Za-z0-9+/]+==");
    assertThat(bytes).hasSize(RefreshTokenCodec.TOKEN_BYTES);
    assertThat(bytes[0]).isEqualTo((byte) 0x07);
    assertThat(bytes[1]).isEqualTo((byte) 0x70);
    assertThat(ByteBuffer.wrap(bytes, 2, 4).getInt()).isEqualTo(TestKeys.REFRESH.id());
  }

  @Test
  void encode_samePayloadTwice_givesDifferentTokens() {
    assertThat(codec.encode(payload, TestKeys.REFRESH))
        .isNotEqualTo(codec.encode(payload, TestKeys.REFRESH));
  }

  @Test
  void encode_withANonRefreshKey_isRejected() {
    assertThatThrownBy(() -> codec.encode(payload, TestKeys.MASTER))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> codec.encode(payload, TestKeys.SITE_KEY))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void decode_unknownKey_isUnknownKey() {
    String token = codec.encode(payload, TestKeys.REFRESH);

    assertRejected(
        () -> codec.decode(token, TestKeys.allExcept(TestKeys.REFRESH.id())), Reason.UNKNOWN_KEY);
  }

  @Test
  void decode_keyOutsideTheRefreshKeyset_isTampered() {
    String token = codec.encode(payload, TestKeys.REFRESH);
    EncryptionKey k = TestKeys.REFRESH;
    EncryptionKey masterKeyset =
        new EncryptionKey(
            k.id(),
            EncryptionKey.MASTER_SITE_ID,
            k.created(),
            k.activates(),
            k.expires(),
            k.secret());

    assertRejected(
        () -> codec.decode(token, TestKeys.replacing(k.id(), masterKeyset)), Reason.TAMPERED);
  }

  @Test
  void decode_keyIdSwappedForAnotherRefreshKey_isTampered() {
    byte[] bytes = Base64.getDecoder().decode(codec.encode(payload, TestKeys.REFRESH));
    ByteBuffer.wrap(bytes).putInt(2, TestKeys.REFRESH_2.id());

    assertRejected(
        () -> codec.decode(Base64.getEncoder().encodeToString(bytes), TestKeys.ALL),
        Reason.TAMPERED);
  }

  @Test
  void decode_innerPrefixDifferentFromHeader_isTampered() throws Exception {
    // Only possible with the refresh key; checks that the codec compares the two prefixes.
    byte[] bytes = Base64.getDecoder().decode(codec.encode(payload, TestKeys.REFRESH));
    byte[] plain = RawGcm.decrypt(TestKeys.REFRESH, bytes, 6, 118, ByteBuffer.wrap(bytes, 0, 6));
    plain[57] = IdentityType.PHONE.prefix();
    RawGcm.encryptInto(TestKeys.REFRESH, plain, bytes, 6, ByteBuffer.wrap(bytes, 0, 6));

    assertRejected(
        () -> codec.decode(Base64.getEncoder().encodeToString(bytes), TestKeys.ALL),
        Reason.TAMPERED);
  }

  @Test
  void decode_otherVersionOrForms_areRejected() {
    String token = codec.encode(payload, TestKeys.REFRESH);
    byte[] bytes = Base64.getDecoder().decode(token);
    byte[] otherVersion = bytes.clone();
    otherVersion[1] = (byte) 0x80;

    assertRejected(
        () -> codec.decode(Base64.getEncoder().encodeToString(otherVersion), TestKeys.ALL),
        Reason.UNSUPPORTED_VERSION);
    assertRejected(() -> codec.decode(token.substring(0, 166), TestKeys.ALL), Reason.MALFORMED);
    assertRejected(
        () ->
            codec.decode(
                Base64.getUrlEncoder().encodeToString(bytes).replace('=', 'A'), TestKeys.ALL),
        Reason.MALFORMED);
    assertRejected(
        () -> codec.decode(token.substring(0, 10) + ' ' + token.substring(11), TestKeys.ALL),
        Reason.MALFORMED);
    assertRejected(() -> codec.decode(null, TestKeys.ALL), Reason.MALFORMED);
  }

  @Test
  void decode_advertisingToken_isMalformed() {
    String advertising =
        new AdvertisingTokenCodec(NonceSource.secure())
            .encode(
                Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE),
                TestKeys.MASTER,
                TestKeys.SITE_KEY);

    assertRejected(() -> codec.decode(advertising, TestKeys.ALL), Reason.MALFORMED);
  }

  // --- the v2 refresh response key ---

  @Test
  void responseKey_isHmacSha256OfTheLabelAndTheTokenUnderTheRefreshKeysSecret() throws Exception {
    String token = codec.encode(payload, TestKeys.REFRESH);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(TestKeys.REFRESH.secret(), "HmacSHA256"));
    mac.update("veil v2 refresh response key".getBytes(StandardCharsets.US_ASCII));
    byte[] expected = mac.doFinal(token.getBytes(StandardCharsets.US_ASCII));

    byte[] key = RefreshTokenCodec.responseKey(token, TestKeys.ALL);

    assertThat(key).hasSize(RefreshTokenCodec.RESPONSE_KEY_BYTES).isEqualTo(expected);
    assertThat(RefreshTokenCodec.responseKey(token, TestKeys.ALL)).isEqualTo(key);
  }

  @Test
  void responseKey_differsForEveryToken_andForEveryRefreshKey() {
    String first = codec.encode(payload, TestKeys.REFRESH);
    String second = codec.encode(payload, TestKeys.REFRESH);
    String underOtherKey = codec.encode(payload, TestKeys.REFRESH_2);

    assertThat(RefreshTokenCodec.responseKey(first, TestKeys.ALL))
        .isNotEqualTo(RefreshTokenCodec.responseKey(second, TestKeys.ALL))
        .isNotEqualTo(RefreshTokenCodec.responseKey(underOtherKey, TestKeys.ALL));
  }

  @Test
  void responseKey_ofATokenWhoseKeyIsUnknown_isUnknownKey() {
    String token = codec.encode(payload, TestKeys.REFRESH);

    assertThatThrownBy(
            () -> RefreshTokenCodec.responseKey(token, TestKeys.allExcept(TestKeys.REFRESH.id())))
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_KEY));
  }

  @Test
  void responseKey_ofATokenNamingANonRefreshKey_isTampered() {
    byte[] bytes = Base64.getDecoder().decode(codec.encode(payload, TestKeys.REFRESH));
    ByteBuffer.wrap(bytes, 2, 4).putInt(TestKeys.MASTER.id());
    String forged = Base64.getEncoder().encodeToString(bytes);

    assertThatThrownBy(() -> RefreshTokenCodec.responseKey(forged, TestKeys.ALL))
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
  }
}
