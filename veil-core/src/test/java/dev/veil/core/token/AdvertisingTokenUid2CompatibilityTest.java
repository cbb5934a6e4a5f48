package dev.veil.core.token;

import static dev.veil.core.token.AdvertisingTokenCodecTest.assertRejected;
import static dev.veil.core.token.AdvertisingTokenCodecTest.decode;
import static dev.veil.core.token.AdvertisingTokenCodecTest.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenCodecTest.RawGcm;
import dev.veil.core.token.InvalidTokenException.Reason;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.IntFunction;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Advertising tokens are readable by UID2's bidder SDKs (both layers without AAD), and the identity
 * prefix, which AAD no longer covers, is bound by its copy in the top byte of the privacy bits.
 */
class AdvertisingTokenUid2CompatibilityTest {
  private final AdvertisingTokenCodec codec = new AdvertisingTokenCodec(NonceSource.secure());

  @ParameterizedTest
  @EnumSource(IdentityType.class)
  void uid2StyleReaderWithoutAad_getsAdvertisingIdSiteAndExpiry(IdentityType type) {
    AdvertisingTokenPayload p = Payloads.advertising(type, TestKeys.SITE);

    Uid2V4Reader.Result read =
        Uid2V4Reader.read(
            codec.encode(p, TestKeys.MASTER, TestKeys.SITE_KEY),
            id -> TestKeys.ALL.byId(id) == null ? null : TestKeys.ALL.byId(id).secret());

    assertThat(read.identityScope()).isZero(); // UID2, not EUID
    assertThat(read.identityType()).isEqualTo(type == IdentityType.EMAIL ? 0 : 1);
    assertThat(read.advertisingIdBase64())
        .isEqualTo(Base64.getEncoder().encodeToString(p.advertisingId()));
    assertThat(read.siteId()).isEqualTo(TestKeys.SITE);
    assertThat(read.expires()).isEqualTo(p.expires());
    assertThat(read.established()).isEqualTo(p.established());
    // What an SDK sees in the privacy bits: Veil's 24 bits below the prefix, always positive.
    assertThat(read.privacyBits())
        .isEqualTo(((type.prefix() & 0xFF) << 24) | p.privacyBits())
        .isPositive();
  }

  @Test
  void encode_writesThePrefixIntoTheTopByteOfThePrivacyBits() throws Exception {
    AdvertisingTokenPayload p =
        withPrivacyBits(Payloads.advertising(IdentityType.PHONE, TestKeys.SITE), 0x00AB_CDEF);

    byte[] inner = innerPlain(decode(codec.encode(p, TestKeys.MASTER, TestKeys.SITE_KEY)));

    assertThat(ByteBuffer.wrap(inner, 16, 4).getInt()).isEqualTo(0x07AB_CDEF);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 0x00FF_FFFF})
  void privacyBitsThatFitIn24Bits_roundTripUnchanged(int bits) {
    AdvertisingTokenPayload p =
        withPrivacyBits(Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE), bits);

    assertThat(codec.decode(codec.encode(p, TestKeys.MASTER, TestKeys.SITE_KEY), TestKeys.ALL))
        .isEqualTo(p);
  }

  @ParameterizedTest
  @ValueSource(ints = {0x0100_0000, 0x0300_0001, 0x8000_0000, -1})
  void encode_privacyBitsUsingTheTopByte_isRefused(int bits) {
    AdvertisingTokenPayload p =
        withPrivacyBits(Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE), bits);

    assertThatThrownBy(() -> codec.encode(p, TestKeys.MASTER, TestKeys.SITE_KEY))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(ints = {0x00, 0x07, 0x13, 0xFF})
  void decode_topByteOfThePrivacyBitsOtherThanThePrefix_isTampered(int topByte) throws Exception {
    // Resealed with both keys, so only the prefix check can notice. Top byte 0 is what UID2 writes.
    byte[] bytes =
        decode(
            codec.encode(
                Payloads.advertising(IdentityType.EMAIL, TestKeys.SITE),
                TestKeys.MASTER,
                TestKeys.SITE_KEY));
    byte[] outer = RawGcm.decrypt(TestKeys.MASTER, bytes, 6, 157);
    byte[] inner = RawGcm.decrypt(TestKeys.SITE_KEY, outer, 33, 96);
    inner[16] = (byte) topByte;
    RawGcm.encryptInto(TestKeys.SITE_KEY, inner, outer, 33);
    RawGcm.encryptInto(TestKeys.MASTER, outer, bytes, 6);

    assertRejected(() -> codec.decode(encode(bytes), TestKeys.ALL), Reason.TAMPERED);
  }

  private static byte[] innerPlain(byte[] token) throws Exception {
    return RawGcm.decrypt(
        TestKeys.SITE_KEY, RawGcm.decrypt(TestKeys.MASTER, token, 6, 157), 33, 96);
  }

  private static AdvertisingTokenPayload withPrivacyBits(AdvertisingTokenPayload p, int bits) {
    return new AdvertisingTokenPayload(
        p.identityType(),
        p.expires(),
        p.created(),
        p.operator(),
        p.publisher(),
        bits,
        p.established(),
        p.refreshed(),
        p.advertisingId());
  }

  /**
   * A minimal reader of UID2 "V4" advertising tokens, written from UID2's published layout and
   * doing what UID2's bidder SDKs do: base64url, prefix (bit 4 scope, bits 2-3 identity type),
   * version 128, then each layer as IV ‖ ciphertext ‖ tag up to the end of its buffer, opened with
   * AES-GCM and NO additional authenticated data. It knows nothing of Veil's prefix binding.
   */
  static final class Uid2V4Reader {
    record Result(
        int identityScope,
        int identityType,
        int siteId,
        int privacyBits,
        Instant established,
        Instant expires,
        String advertisingIdBase64) {}

    private Uid2V4Reader() {}

    static Result read(String token, IntFunction<byte[]> secretById) {
      byte[] data = Base64.getUrlDecoder().decode(token);
      ByteBuffer header = ByteBuffer.wrap(data);
      int prefix = header.get();
      if ((header.get() & 0xFF) != 128) {
        throw new AssertionError("not a V4 token");
      }
      ByteBuffer master = ByteBuffer.wrap(openGcm(data, 6, secretById.apply(header.getInt())));
      Instant expires = Instant.ofEpochMilli(master.getLong());
      master.getLong(); // created
      master.position(master.position() + 4 + 1 + 4 + 4); // operator site id, type, version, key id
      int siteKeyId = master.getInt();
      byte[] site = openGcm(master.array(), master.position(), secretById.apply(siteKeyId));
      ByteBuffer reader = ByteBuffer.wrap(site);
      int siteId = reader.getInt();
      reader.getLong(); // publisher id
      reader.getInt(); // client key id
      int privacyBits = reader.getInt();
      Instant established = Instant.ofEpochMilli(reader.getLong());
      reader.getLong(); // refreshed
      byte[] id = Arrays.copyOfRange(site, reader.position(), site.length);
      return new Result(
          (prefix >> 4) & 1,
          (prefix >> 2) & 3,
          siteId,
          privacyBits,
          established,
          expires,
          Base64.getEncoder().encodeToString(id));
    }

    private static byte[] openGcm(byte[] in, int offset, byte[] secret) {
      try {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(
            Cipher.DECRYPT_MODE,
            new SecretKeySpec(secret, "AES"),
            new GCMParameterSpec(128, in, offset, 12));
        return cipher.doFinal(in, offset + 12, in.length - offset - 12);
      } catch (Exception e) {
        throw new AssertionError("UID2-style decryption failed: " + e, e);
      }
    }
  }
}
