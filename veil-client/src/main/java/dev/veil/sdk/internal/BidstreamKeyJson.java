package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.core.token.EncryptionKey;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The opened answer of {@code POST /v2/key/bidstream} (UID2's shape): {@code
 * {"status":"success","body":{"max_bidstream_lifetime_seconds","identity_scope",
 * "allow_clock_skew_seconds","keys":[{"id","created","activates","expires","secret"}…],
 * "site_data":[{"id","domain_names":[…]}…]}}}, times in epoch seconds, secrets standard base64 of
 * 32 bytes. Keys name no keyset: they get {@link #NO_SITE_ID}, and tokens are decoded with them by
 * key id alone. Absent or null {@code keys} and {@code site_data} are empty; absent limits take
 * {@link BidstreamRules}' defaults; a site id 0 is skipped; unknown members are skipped.
 */
public final class BidstreamKeyJson {
  public static final String PATH = "/v2/key/bidstream";

  /** The site id given to the answer's keys, which name none. */
  public static final int NO_SITE_ID = 0;

  private BidstreamKeyJson() {}

  /** The keys and the rules, read from the opened answer. */
  public record Answer(List<EncryptionKey> keys, BidstreamRules rules) {
    public Answer {
      keys = List.copyOf(keys);
    }
  }

  public static Answer read(InputStream in) throws IOException {
    return Envelopes.read(in, BidstreamKeyJson::body).successBody();
  }

  private static Answer body(JsonParser p) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_OBJECT);
    long maxLifetime = Long.MAX_VALUE;
    long skew = BidstreamRules.DEFAULT_ALLOWED_SKEW_SECONDS;
    List<EncryptionKey> keys = new ArrayList<>();
    Map<Integer, List<String>> names = new HashMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      switch (name) {
        case "max_bidstream_lifetime_seconds" -> maxLifetime = notNegative(p);
        case "allow_clock_skew_seconds" -> skew = notNegative(p);
        case "keys" -> keys(p, keys);
        case "site_data" -> sites(p, names);
        default -> p.skipChildren();
      }
    }
    return new Answer(keys, new BidstreamRules(maxLifetime, skew, names));
  }

  private static long notNegative(JsonParser p) throws IOException {
    long value = Envelopes.number(p);
    if (value < 0) {
      throw new JsonParseException(p, "a bidstream limit is negative");
    }
    return value;
  }

  private static void keys(JsonParser p, List<EncryptionKey> into) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_ARRAY);
    while (p.nextToken() == JsonToken.START_OBJECT) {
      into.add(KeyJson.key(p, NO_SITE_ID));
    }
    Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
  }

  private static void sites(JsonParser p, Map<Integer, List<String>> into) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_ARRAY);
    while (p.nextToken() == JsonToken.START_OBJECT) {
      Long id = null;
      List<String> names = new ArrayList<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (name.equals("id")) {
          id = Envelopes.number(p);
        } else if (name.equals("domain_names") && value != JsonToken.VALUE_NULL) {
          Envelopes.expect(p, value, JsonToken.START_ARRAY);
          while (p.nextToken() == JsonToken.VALUE_STRING) {
            names.add(p.getText());
          }
          Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
        } else {
          p.skipChildren();
        }
      }
      if (id == null || id != id.intValue()) {
        throw new JsonParseException(p, "site record lacks its id or has one out of range");
      }
      if (id != 0) {
        into.computeIfAbsent(id.intValue(), k -> new ArrayList<>()).addAll(names);
      }
    }
    Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
  }
}
