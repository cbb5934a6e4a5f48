package dev.veil.core.golden;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.veil.core.token.AdvertisingTokenCodec;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.InvalidTokenException;
import dev.veil.core.token.KeyLookup;
import dev.veil.core.token.RefreshTokenCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Writes src/test/resources/golden/vectors.json. Not a test: run it by hand only for a deliberate
 * change of the formats, review the diff, and tell every consumer (server, Java client, browser
 * SDK), because the file is their contract. Inputs and expected normal forms are written by hand
 * (identity cases in {@link GoldenIdentityCases}); hashes come from plain {@code MessageDigest};
 * token strings come from the codecs and are accepted only after {@link IndependentTokenReader} has
 * read them back field by field; invalid tokens are checked against the decoders.
 *
 * <p>Usage: {@code java -cp <test classpath> dev.veil.core.golden.GoldenVectorsWriter <output
 * path>}
 */
public final class GoldenVectorsWriter {
  private static final HexFormat HEX = HexFormat.of();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DefaultPrettyPrinter PRETTY =
      new DefaultPrettyPrinter(
              Separators.createDefaultInstance()
                  .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
          .withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);
  private static final long NOW_MS = Instant.parse("2026-03-01T12:00:00.123Z").toEpochMilli();
  private static final long HOUR_MS = 3_600_000L;
  private static final long DAY_MS = 24 * HOUR_MS;

  private static final List<String> DESCRIPTION =
      List.of(
          "Golden vectors of Veil: the contract between the server, the Java client and the browser"
              + " SDK. Every implementation must reproduce every value in this file.",
          "All times are epoch milliseconds; all binary values are hex ('...Hex') or standard"
              + " base64 with padding ('...Base64').",
          "normalization[]: 'input' is the request parameter ('email' or 'phone'), 'raw' the value"
              + " as sent, 'normalized' its normal form or null when the value is invalid,"
              + " 'sha256Base64' the SHA-256 of the UTF-8 bytes of 'normalized' (null when"
              + " invalid).",
          "hashParse[]: 'value' sent as 'input' ('email_hash' or 'phone_hash'); 'valid' says"
              + " whether it must be accepted; 'base64' is the 32-byte hash it denotes; 'note' says"
              + " what the case is about.",
          "keys[]: 'id', 'siteId' (-1 master keyset, -2 refresh keyset, else a publisher site),"
              + " 'createdMs', 'activatesMs', 'expiresMs', 'secretHex' (32-byte AES-256 key).",
          "advertisingTokens[]: 'payload' encrypted with key 'masterKeyId' (outer layer, IV"
              + " 'outerIvHex') and key 'siteKeyId' (inner layer, IV 'innerIvHex') gives exactly"
              + " 'token' (base64url without padding). operator.type is the unsigned value of its"
              + " byte. Veil's codec draws the outer IV first, then the inner. Neither layer has"
              + " AAD (UID2 compatibility). payload.privacyBits fits in 24 bits: on the wire the"
              + " top byte of the 4-byte field holds the identity prefix (byte 0 of the token),"
              + " which decoders must check.",
          "refreshTokens[]: 'payload' encrypted with key 'refreshKeyId' and IV 'ivHex' gives"
              + " exactly 'token' (standard base64 with padding).",
          "invalidTokens[]: decoding 'token' with the decoder named by 'format' ('advertising' or"
              + " 'refresh'), all keys above known, must fail; 'reason' is Veil's"
              + " InvalidTokenException.Reason (others need only reject).",
          "clock.nowMs: the instant the example times are built around. Codecs never read a clock:"
              + " expiry is the caller's check, so the tokens here decode whatever the date.",
          "Layouts: docs/token-format.md. Regenerate only for a deliberate format change, with"
              + " dev.veil.core.golden.GoldenVectorsWriter in veil-core's test sources, then update"
              + " every consumer.");

  private GoldenVectorsWriter() {}

  public static void main(String[] args) throws Exception {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode description = root.putArray("description");
    DESCRIPTION.forEach(description::add);
    root.put("formatVersion", 1);
    root.putObject("clock")
        .put("nowMs", NOW_MS)
        .put("now", Instant.ofEpochMilli(NOW_MS).toString());
    GoldenIdentityCases.normalization(root.putArray("normalization"));
    GoldenIdentityCases.hashParse(root.putArray("hashParse"));
    ArrayNode keys = root.putArray("keys");
    key(keys, 1, EncryptionKey.MASTER_SITE_ID, NOW_MS - 10 * DAY_MS);
    key(keys, 2, EncryptionKey.MASTER_SITE_ID, NOW_MS - DAY_MS);
    key(keys, 10, 77, NOW_MS - 10 * DAY_MS);
    key(keys, 11, 77, NOW_MS - DAY_MS);
    key(keys, 20, EncryptionKey.REFRESH_SITE_ID, NOW_MS - 10 * DAY_MS);
    key(keys, 21, EncryptionKey.REFRESH_SITE_ID, NOW_MS - DAY_MS);
    ArrayNode advertising = root.putArray("advertisingTokens");
    advertisingCases(advertising, keys);
    ArrayNode refresh = root.putArray("refreshTokens");
    refreshCases(refresh, keys);
    KeyLookup lookup = GoldenJson.keys(keys)::get;
    invalidCases(root.putArray("invalidTokens"), lookup, advertising.get(0), refresh.get(0));
    Files.writeString(
        Path.of(args[0]),
        JSON.writer(PRETTY).writeValueAsString(root) + "\n",
        StandardCharsets.UTF_8);
  }

  private static void key(ArrayNode keys, int id, int siteId, long activatesMs) {
    keys.addObject()
        .put("id", id)
        .put("siteId", siteId)
        .put("createdMs", activatesMs - HOUR_MS)
        .put("activatesMs", activatesMs)
        .put("expiresMs", activatesMs + 60 * DAY_MS)
        .put("secretHex", HEX.formatHex(sha256("veil golden key " + id)));
  }

  private static void advertisingCases(ArrayNode out, ArrayNode keys) throws Exception {
    ObjectNode typical =
        advertisingCase(
            out,
            "email, typical values",
            2,
            11,
            "000102030405060708090a0b",
            "a0a1a2a3a4a5a6a7a8a9aaab");
    payload(typical, "EMAIL", NOW_MS + 72 * HOUR_MS, NOW_MS, NOW_MS - 30 * DAY_MS)
        .put("refreshedMs", NOW_MS)
        .put("advertisingIdBase64", b64(sha256("golden advertising id 1")));
    ObjectNode extreme =
        advertisingCase(
            out,
            "phone, older keys, extreme and negative values",
            1,
            10,
            "ffffffffffffffffffffffff",
            "0000000000000000000000ff");
    ObjectNode p =
        payload(extreme, "PHONE", Long.MAX_VALUE, -1L, 0L)
            .put("refreshedMs", Long.MIN_VALUE)
            .put("privacyBits", 0x00FF_FFFF)
            .put("advertisingIdBase64", b64(sha256("golden advertising id 2")));
    ((ObjectNode) p.get("operator"))
        .put("siteId", -5)
        .put("type", 255)
        .put("version", Integer.MIN_VALUE)
        .put("keyId", -1);
    ((ObjectNode) p.get("publisher"))
        .put("publisherId", Long.MIN_VALUE)
        .put("clientKeyId", Integer.MAX_VALUE);
    Map<Integer, EncryptionKey> byId = GoldenJson.keys(keys);
    for (JsonNode c : out) {
      AdvertisingTokenCodec codec =
          new AdvertisingTokenCodec(
              GoldenJson.fixedIvs(c.get("outerIvHex").asText(), c.get("innerIvHex").asText()));
      String token =
          codec.encode(
              GoldenJson.advertisingPayload(c.get("payload")),
              byId.get(c.get("masterKeyId").asInt()),
              byId.get(c.get("siteKeyId").asInt()));
      check(
          IndependentTokenReader.readAdvertising(token, GoldenJson.secrets(keys))
              .equals(GoldenJson.expectedAdvertisingFields(c)),
          "independent reading of " + c.get("name"));
      ((ObjectNode) c).put("token", token);
    }
  }

  private static ObjectNode advertisingCase(
      ArrayNode out, String name, int masterKeyId, int siteKeyId, String outerIv, String innerIv) {
    return out.addObject()
        .put("name", name)
        .put("masterKeyId", masterKeyId)
        .put("siteKeyId", siteKeyId)
        .put("outerIvHex", outerIv)
        .put("innerIvHex", innerIv);
  }

  private static void refreshCases(ArrayNode out, ArrayNode keys) {
    ObjectNode typical =
        out.addObject()
            .put("name", "email, typical values")
            .put("refreshKeyId", 21)
            .put("ivHex", "0c0d0e0f1011121314151617");
    payload(typical, "EMAIL", NOW_MS + 30 * DAY_MS, NOW_MS, NOW_MS - 30 * DAY_MS)
        .put("firstLevelHashBase64", b64(sha256("golden first-level hash 1")));
    ObjectNode extreme =
        out.addObject()
            .put("name", "phone, older key, extreme and negative values")
            .put("refreshKeyId", 20)
            .put("ivHex", "ffffffffffffffffffffffff");
    ObjectNode p =
        payload(extreme, "PHONE", Long.MAX_VALUE, Long.MIN_VALUE, -1L)
            .put("privacyBits", Integer.MIN_VALUE)
            .put("firstLevelHashBase64", b64(sha256("golden first-level hash 2")));
    ((ObjectNode) p.get("operator")).put("type", 128).put("version", -1);
    ((ObjectNode) p.get("publisher")).put("publisherId", -1L);
    Map<Integer, EncryptionKey> byId = GoldenJson.keys(keys);
    for (JsonNode c : out) {
      RefreshTokenCodec codec = new RefreshTokenCodec(GoldenJson.fixedIvs(c.get("ivHex").asText()));
      String token =
          codec.encode(
              GoldenJson.refreshPayload(c.get("payload")), byId.get(c.get("refreshKeyId").asInt()));
      check(
          IndependentTokenReader.readRefresh(token, GoldenJson.secrets(keys))
              .equals(GoldenJson.expectedRefreshFields(c)),
          "independent reading of " + c.get("name"));
      ((ObjectNode) c).put("token", token);
    }
  }

  private static ObjectNode payload(
      ObjectNode c, String type, long expiresMs, long createdMs, long establishedMs) {
    ObjectNode p =
        c.putObject("payload")
            .put("identityType", type)
            .put("expiresMs", expiresMs)
            .put("createdMs", createdMs);
    p.putObject("operator").put("siteId", 1).put("type", 2).put("version", 3).put("keyId", 4);
    p.putObject("publisher")
        .put("siteId", 77)
        .put("publisherId", 1234567890123L)
        .put("clientKeyId", 42);
    return p.put("privacyBits", 1).put("establishedMs", establishedMs);
  }

  private static void invalidCases(
      ArrayNode out, KeyLookup keys, JsonNode advertising, JsonNode refresh) {
    String ad = advertising.get("token").asText();
    byte[] adBytes = Base64.getUrlDecoder().decode(ad);
    invalid(
        out,
        keys,
        "advertising",
        "last byte (outer tag) flipped",
        adUrl(flip(adBytes, 162)),
        "TAMPERED");
    invalid(
        out,
        keys,
        "advertising",
        "a ciphertext byte flipped",
        adUrl(flip(adBytes, 40)),
        "TAMPERED");
    invalid(
        out,
        keys,
        "advertising",
        "prefix changed from email to phone (the privacy bits still hold 0x03)",
        adUrl(set(adBytes, 0, 0x07)),
        "TAMPERED");
    invalid(
        out,
        keys,
        "advertising",
        "version byte 0x70",
        adUrl(set(adBytes, 1, 0x70)),
        "UNSUPPORTED_VERSION");
    invalid(
        out,
        keys,
        "advertising",
        "master key id 2 replaced by 1 (another master key)",
        adUrl(set(adBytes, 5, 1)),
        "TAMPERED");
    invalid(
        out,
        keys,
        "advertising",
        "master key id replaced by an unknown id 99",
        adUrl(set(adBytes, 5, 99)),
        "UNKNOWN_KEY");
    invalid(out, keys, "advertising", "padding appended", ad + "==", "MALFORMED");
    invalid(
        out,
        keys,
        "advertising",
        "last character dropped",
        ad.substring(0, ad.length() - 1),
        "MALFORMED");
    invalid(
        out, keys, "advertising", "a refresh token", refresh.get("token").asText(), "MALFORMED");
    String rt = refresh.get("token").asText();
    byte[] rtBytes = Base64.getDecoder().decode(rt);
    invalid(out, keys, "refresh", "last byte (tag) flipped", b64(flip(rtBytes, 123)), "TAMPERED");
    invalid(
        out,
        keys,
        "refresh",
        "refresh key id 21 replaced by 20 (another refresh key)",
        b64(set(rtBytes, 5, 20)),
        "TAMPERED");
    invalid(
        out,
        keys,
        "refresh",
        "refresh key id replaced by a master key id",
        b64(set(rtBytes, 5, 1)),
        "TAMPERED");
    invalid(
        out,
        keys,
        "refresh",
        "'+' became a space and '/' became '_'",
        rt.replace('+', ' ').replace('/', '_'),
        "MALFORMED");
    invalid(out, keys, "refresh", "an advertising token", ad, "MALFORMED");
  }

  private static void invalid(
      ArrayNode out, KeyLookup keys, String format, String note, String token, String reason) {
    check(!"invalid".equals(reason), "reason");
    String actual;
    try {
      if (format.equals("advertising")) {
        new AdvertisingTokenCodec(GoldenJson.fixedIvs()).decode(token, keys);
      } else {
        new RefreshTokenCodec(GoldenJson.fixedIvs()).decode(token, keys);
      }
      actual = "accepted";
    } catch (InvalidTokenException e) {
      actual = e.reason().name();
    }
    check(actual.equals(reason), "invalid token case '" + note + "' gave " + actual);
    out.addObject()
        .put("format", format)
        .put("note", note)
        .put("token", token)
        .put("reason", reason);
  }

  private static byte[] flip(byte[] bytes, int index) {
    byte[] copy = bytes.clone();
    copy[index] ^= 0x01;
    return copy;
  }

  private static byte[] set(byte[] bytes, int index, int value) {
    byte[] copy = bytes.clone();
    copy[index] = (byte) value;
    return copy;
  }

  private static String adUrl(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  static String b64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static void check(boolean condition, String what) {
    if (!condition) {
      throw new IllegalStateException("golden vector disagrees with the implementation: " + what);
    }
  }
}
