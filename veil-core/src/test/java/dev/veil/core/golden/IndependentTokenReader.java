package dev.veil.core.golden;

import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Reads both token layouts byte by byte with nothing but the JDK, written from the layout tables in
 * docs/token-format.md and independent of the codecs under test (no shared constants, no
 * ByteBuffer, a fresh Cipher per call). It returns every field by name, so a test can compare it
 * with the golden payload, IVs and key ids. It fails with an AssertionError on anything unexpected.
 * Like UID2's bidder SDKs it opens both layers of an advertising token without AAD; unlike them it
 * also checks Veil's prefix binding (top byte of the privacy bits equals byte 0).
 */
final class IndependentTokenReader {
  private final byte[] bytes;
  private int position;

  private IndependentTokenReader(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Fields of an advertising token; {@code secrets} maps key id to its 32-byte secret. */
  static Map<String, Object> readAdvertising(String token, Map<Integer, byte[]> secrets) {
    check(token.matches("[A-Za-z0-9_-]{218}"), "218 base64url characters without padding");
    IndependentTokenReader outer = new IndependentTokenReader(Base64.getUrlDecoder().decode(token));
    check(outer.bytes.length == 163, "163 bytes");
    Map<String, Object> fields = new LinkedHashMap<>();
    int prefix = outer.u8();
    fields.put("prefix", prefix);
    fields.put("version", outer.u8());
    int masterKeyId = (int) outer.uint(4);
    fields.put("masterKeyId", masterKeyId);
    byte[] outerIv = outer.take(12);
    fields.put("outerIvHex", HexFormat.of().formatHex(outerIv));
    IndependentTokenReader middle =
        new IndependentTokenReader(
            gcmOpen(secrets.get(masterKeyId), outerIv, new byte[0], outer.take(129 + 16)));
    check(outer.position == 163, "outer tag ends the token");
    fields.put("expiresMs", middle.int64());
    fields.put("createdMs", middle.int64());
    readOperator(middle, fields);
    int siteKeyId = (int) middle.uint(4);
    fields.put("siteKeyId", siteKeyId);
    byte[] innerIv = middle.take(12);
    fields.put("innerIvHex", HexFormat.of().formatHex(innerIv));
    IndependentTokenReader inner =
        new IndependentTokenReader(
            gcmOpen(secrets.get(siteKeyId), innerIv, new byte[0], middle.take(68 + 16)));
    check(middle.position == 129, "inner segment ends the outer plaintext");
    fields.put("publisher.siteId", (int) inner.uint(4));
    fields.put("publisher.publisherId", inner.int64());
    fields.put("publisher.clientKeyId", (int) inner.uint(4));
    check(inner.u8() == prefix, "the identity prefix again in the top byte of the privacy bits");
    fields.put("privacyBits", (int) inner.uint(3));
    fields.put("establishedMs", inner.int64());
    fields.put("refreshedMs", inner.int64());
    fields.put("advertisingIdBase64", Base64.getEncoder().encodeToString(inner.take(32)));
    check(inner.position == 68, "advertising id ends the inner plaintext");
    return fields;
  }

  /** Fields of a refresh token; {@code secrets} maps key id to its 32-byte secret. */
  static Map<String, Object> readRefresh(String token, Map<Integer, byte[]> secrets) {
    check(token.matches("[A-Za-z0-9+/]{166}=="), "168 standard base64 characters ending in ==");
    IndependentTokenReader outer = new IndependentTokenReader(Base64.getDecoder().decode(token));
    check(outer.bytes.length == 124, "124 bytes");
    Map<String, Object> fields = new LinkedHashMap<>();
    byte[] header = Arrays.copyOfRange(outer.bytes, 0, 6);
    fields.put("prefix", outer.u8());
    fields.put("version", outer.u8());
    int keyId = (int) outer.uint(4);
    fields.put("refreshKeyId", keyId);
    byte[] iv = outer.take(12);
    fields.put("ivHex", HexFormat.of().formatHex(iv));
    IndependentTokenReader plain =
        new IndependentTokenReader(gcmOpen(secrets.get(keyId), iv, header, outer.take(106)));
    check(outer.position == 124, "tag ends the token");
    fields.put("expiresMs", plain.int64());
    fields.put("createdMs", plain.int64());
    readOperator(plain, fields);
    fields.put("publisher.siteId", (int) plain.uint(4));
    fields.put("publisher.publisherId", plain.int64());
    fields.put("publisher.clientKeyId", (int) plain.uint(4));
    fields.put("privacyBits", (int) plain.uint(4));
    fields.put("establishedMs", plain.int64());
    fields.put("innerPrefix", plain.u8());
    fields.put("firstLevelHashBase64", Base64.getEncoder().encodeToString(plain.take(32)));
    check(plain.position == 90, "first-level hash ends the plaintext");
    return fields;
  }

  private static void readOperator(IndependentTokenReader in, Map<String, Object> fields) {
    fields.put("operator.siteId", (int) in.uint(4));
    fields.put("operator.type", in.u8());
    fields.put("operator.version", (int) in.uint(4));
    fields.put("operator.keyId", (int) in.uint(4));
  }

  private static byte[] gcmOpen(byte[] secret, byte[] iv, byte[] aad, byte[] ciphertextAndTag) {
    check(secret != null, "key known to the golden key list");
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(
          Cipher.DECRYPT_MODE, new SecretKeySpec(secret, "AES"), new GCMParameterSpec(128, iv));
      if (aad.length > 0) {
        cipher.updateAAD(aad);
      }
      return cipher.doFinal(ciphertextAndTag);
    } catch (Exception e) {
      throw new AssertionError("AES-GCM open failed: " + e, e);
    }
  }

  private int u8() {
    return bytes[position++] & 0xFF;
  }

  /** An unsigned big-endian integer of {@code n} bytes. */
  private long uint(int n) {
    long value = 0;
    for (int i = 0; i < n; i++) {
      value = (value << 8) | u8();
    }
    return value;
  }

  private long int64() {
    return uint(8);
  }

  private byte[] take(int n) {
    byte[] part = Arrays.copyOfRange(bytes, position, position + n);
    position += n;
    return part;
  }

  private static void check(boolean condition, String expectation) {
    if (!condition) {
      throw new AssertionError("token layout: expected " + expectation);
    }
  }
}
