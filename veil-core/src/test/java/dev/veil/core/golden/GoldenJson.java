package dev.veil.core.golden;

import com.fasterxml.jackson.databind.JsonNode;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.identity.IdentityType;
import dev.veil.core.token.AdvertisingTokenPayload;
import dev.veil.core.token.EncryptionKey;
import dev.veil.core.token.OperatorInfo;
import dev.veil.core.token.PublisherInfo;
import dev.veil.core.token.RefreshTokenPayload;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/** Turns the JSON of golden/vectors.json into keys, payloads and expected token fields. */
final class GoldenJson {
  private static final HexFormat HEX = HexFormat.of();

  private GoldenJson() {}

  static Map<Integer, EncryptionKey> keys(JsonNode keys) {
    Map<Integer, EncryptionKey> byId = new HashMap<>();
    for (JsonNode k : keys) {
      byId.put(
          k.get("id").asInt(),
          new EncryptionKey(
              k.get("id").asInt(),
              k.get("siteId").asInt(),
              ms(k, "createdMs"),
              ms(k, "activatesMs"),
              ms(k, "expiresMs"),
              HEX.parseHex(k.get("secretHex").asText())));
    }
    return byId;
  }

  static Map<Integer, byte[]> secrets(JsonNode keys) {
    Map<Integer, byte[]> byId = new HashMap<>();
    for (JsonNode k : keys) {
      byId.put(k.get("id").asInt(), HEX.parseHex(k.get("secretHex").asText()));
    }
    return byId;
  }

  static AdvertisingTokenPayload advertisingPayload(JsonNode p) {
    return new AdvertisingTokenPayload(
        IdentityType.valueOf(p.get("identityType").asText()),
        ms(p, "expiresMs"),
        ms(p, "createdMs"),
        operator(p.get("operator")),
        publisher(p.get("publisher")),
        p.get("privacyBits").asInt(),
        ms(p, "establishedMs"),
        ms(p, "refreshedMs"),
        b64(p, "advertisingIdBase64"));
  }

  static RefreshTokenPayload refreshPayload(JsonNode p) {
    return new RefreshTokenPayload(
        IdentityType.valueOf(p.get("identityType").asText()),
        ms(p, "expiresMs"),
        ms(p, "createdMs"),
        operator(p.get("operator")),
        publisher(p.get("publisher")),
        p.get("privacyBits").asInt(),
        ms(p, "establishedMs"),
        b64(p, "firstLevelHashBase64"));
  }

  /** What {@link IndependentTokenReader#readAdvertising} must find in the case's token. */
  static Map<String, Object> expectedAdvertisingFields(JsonNode c) {
    JsonNode p = c.get("payload");
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("prefix", prefix(p));
    fields.put("version", 0x80);
    fields.put("masterKeyId", c.get("masterKeyId").asInt());
    fields.put("outerIvHex", c.get("outerIvHex").asText());
    fields.put("expiresMs", p.get("expiresMs").asLong());
    fields.put("createdMs", p.get("createdMs").asLong());
    putOperator(p.get("operator"), fields);
    fields.put("siteKeyId", c.get("siteKeyId").asInt());
    fields.put("innerIvHex", c.get("innerIvHex").asText());
    putPublisher(p.get("publisher"), fields);
    fields.put("privacyBits", p.get("privacyBits").asInt());
    fields.put("establishedMs", p.get("establishedMs").asLong());
    fields.put("refreshedMs", p.get("refreshedMs").asLong());
    fields.put("advertisingIdBase64", p.get("advertisingIdBase64").asText());
    return fields;
  }

  /** What {@link IndependentTokenReader#readRefresh} must find in the case's token. */
  static Map<String, Object> expectedRefreshFields(JsonNode c) {
    JsonNode p = c.get("payload");
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("prefix", prefix(p));
    fields.put("version", 0x70);
    fields.put("refreshKeyId", c.get("refreshKeyId").asInt());
    fields.put("ivHex", c.get("ivHex").asText());
    fields.put("expiresMs", p.get("expiresMs").asLong());
    fields.put("createdMs", p.get("createdMs").asLong());
    putOperator(p.get("operator"), fields);
    putPublisher(p.get("publisher"), fields);
    fields.put("privacyBits", p.get("privacyBits").asInt());
    fields.put("establishedMs", p.get("establishedMs").asLong());
    fields.put("innerPrefix", prefix(p));
    fields.put("firstLevelHashBase64", p.get("firstLevelHashBase64").asText());
    return fields;
  }

  /** A nonce source that hands out the given hex IVs in order and then fails. */
  static NonceSource fixedIvs(String... hexIvs) {
    Deque<byte[]> ivs = new ArrayDeque<>();
    for (String hex : hexIvs) {
      ivs.add(HEX.parseHex(hex));
    }
    return iv -> System.arraycopy(ivs.removeFirst(), 0, iv, 0, iv.length);
  }

  private static int prefix(JsonNode payload) {
    return switch (payload.get("identityType").asText()) {
      case "EMAIL" -> 0x03;
      case "PHONE" -> 0x07;
      default -> throw new AssertionError("identity type");
    };
  }

  private static void putOperator(JsonNode o, Map<String, Object> fields) {
    fields.put("operator.siteId", o.get("siteId").asInt());
    fields.put("operator.type", o.get("type").asInt());
    fields.put("operator.version", o.get("version").asInt());
    fields.put("operator.keyId", o.get("keyId").asInt());
  }

  private static void putPublisher(JsonNode p, Map<String, Object> fields) {
    fields.put("publisher.siteId", p.get("siteId").asInt());
    fields.put("publisher.publisherId", p.get("publisherId").asLong());
    fields.put("publisher.clientKeyId", p.get("clientKeyId").asInt());
  }

  private static OperatorInfo operator(JsonNode o) {
    return new OperatorInfo(
        o.get("siteId").asInt(),
        (byte) o.get("type").asInt(),
        o.get("version").asInt(),
        o.get("keyId").asInt());
  }

  private static PublisherInfo publisher(JsonNode p) {
    return new PublisherInfo(
        p.get("siteId").asInt(), p.get("publisherId").asLong(), p.get("clientKeyId").asInt());
  }

  private static Instant ms(JsonNode node, String field) {
    return Instant.ofEpochMilli(node.get(field).asLong());
  }

  private static byte[] b64(JsonNode node, String field) {
    return Base64.getDecoder().decode(node.get(field).asText());
  }
}
