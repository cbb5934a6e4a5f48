package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The wire format of {@code POST /v2/optout/status} (docs/http-api.md), inside the v2 envelope: a
 * body {@code {"advertising_ids":[…]}} and an answer {@code {"opted_out":[{"advertising_id":…,
 * "opted_out_since":<epoch ms>}…]}} listing only the ids that opted out.
 */
public final class OptOutStatusJson {
  /** The path. */
  public static final String PATH = "/v2/optout/status";

  /** Most advertising ids per request. */
  public static final int MAX_IDS = 5_000;

  private OptOutStatusJson() {}

  /**
   * Asks about {@code ids} (at most {@link #MAX_IDS}); returns for each, in order, when it opted
   * out (epoch ms), or -1 if it did not.
   */
  public static long[] call(ApiCaller caller, V2Envelopes v2, List<String> ids) {
    if (ids.size() > MAX_IDS) {
      throw new IllegalArgumentException("at most " + MAX_IDS + " advertising ids per request");
    }
    byte[] body =
        Envelopes.write(
            g -> {
              g.writeStartObject();
              g.writeArrayFieldStart("advertising_ids");
              for (String id : ids) {
                g.writeString(id);
              }
              g.writeEndArray();
              g.writeEndObject();
            });
    Map<String, Long> optedOut =
        caller.call(
            PATH,
            v2.sealed(body, in -> Envelopes.read(in, OptOutStatusJson::readBody).successBody()));
    long[] since = new long[ids.size()];
    for (int i = 0; i < since.length; i++) {
      since[i] = optedOut.getOrDefault(ids.get(i), -1L);
    }
    return since;
  }

  private static Map<String, Long> readBody(JsonParser p) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_OBJECT);
    Map<String, Long> optedOut = new HashMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      if (!"opted_out".equals(name)) {
        p.skipChildren();
        continue;
      }
      Envelopes.expect(p, p.currentToken(), JsonToken.START_ARRAY);
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String id = null;
        long since = -1;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          p.nextToken();
          if ("advertising_id".equals(field)) {
            id = Envelopes.text(p);
          } else if ("opted_out_since".equals(field)) {
            since = Envelopes.number(p);
          } else {
            p.skipChildren();
          }
        }
        if (id == null || since < 0) {
          throw new JsonParseException(p, "opt-out status entry lacks a member");
        }
        optedOut.put(id, since);
      }
      Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
    }
    return optedOut;
  }
}
