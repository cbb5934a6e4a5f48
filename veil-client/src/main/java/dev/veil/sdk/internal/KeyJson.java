package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.core.token.EncryptionKey;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The answer of {@code GET /v1/key/latest} (UID2's shape): {@code
 * [{"id","site_id","created","activates","expires","secret"}…]}, times in epoch seconds, the secret
 * in standard base64 (32 bytes).
 */
public final class KeyJson {
  public static final String PATH = "/v1/key/latest";

  private KeyJson() {}

  public static List<EncryptionKey> read(InputStream in) throws IOException {
    return Envelopes.read(in, KeyJson::keys).successBody();
  }

  private static List<EncryptionKey> keys(JsonParser p) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_ARRAY);
    List<EncryptionKey> keys = new ArrayList<>();
    while (p.nextToken() == JsonToken.START_OBJECT) {
      keys.add(key(p, null));
    }
    Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
    return keys;
  }

  /**
   * One key object, from after its {@code START_OBJECT} to its end.
   *
   * @param siteIdWhenAbsent the site id of a key without {@code site_id} (the v2 bidder answer
   *     names none), or null if {@code site_id} is required (the v1 answer)
   */
  static EncryptionKey key(JsonParser p, Integer siteIdWhenAbsent) throws IOException {
    Long id = null;
    Long siteId = null;
    Long created = null;
    Long activates = null;
    Long expires = null;
    byte[] secret = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "id" -> id = Envelopes.number(p);
        case "site_id" -> siteId = Envelopes.number(p);
        case "created" -> created = Envelopes.number(p);
        case "activates" -> activates = Envelopes.number(p);
        case "expires" -> expires = Envelopes.number(p);
        case "secret" -> secret = secret(p);
        default -> p.skipChildren();
      }
    }
    if (siteId == null && siteIdWhenAbsent != null) {
      siteId = siteIdWhenAbsent.longValue();
    }
    if (id == null
        || siteId == null
        || created == null
        || activates == null
        || expires == null
        || secret == null
        || id != id.intValue()
        || siteId != siteId.intValue()) {
      throw new JsonParseException(p, "key record lacks a member or has one out of range");
    }
    return new EncryptionKey(
        id.intValue(),
        siteId.intValue(),
        Instant.ofEpochSecond(created),
        Instant.ofEpochSecond(activates),
        Instant.ofEpochSecond(expires),
        secret);
  }

  /** A key's {@code secret}: standard base64 of 32 bytes. */
  static byte[] secret(JsonParser p) throws IOException {
    try {
      byte[] secret = Base64.getDecoder().decode(Envelopes.text(p));
      if (secret.length != 32) {
        throw new JsonParseException(p, "key secret is not 32 bytes");
      }
      return secret;
    } catch (IllegalArgumentException e) {
      throw new JsonParseException(p, "key secret is not base64");
    }
  }
}
