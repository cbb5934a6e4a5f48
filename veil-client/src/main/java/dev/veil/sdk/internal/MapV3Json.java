package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.core.identity.IdentityInput;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The wire format of {@code POST /v3/identity/map} (docs/http-api.md), inside the v2 envelope: the
 * request is v1's body ({@code {"<kind>":[values…]}}), the answer holds one array per kind, each
 * entry at the index of its value: {@code {"u":…,"p":…|null,"r":<epoch seconds>}} or {@code
 * {"e":"optout"|"invalid identifier"}}. One request carries one kind here, so the answer's array of
 * that kind must have exactly one entry per value sent; the other kinds' arrays must be empty.
 */
public final class MapV3Json {
  /** The path. */
  public static final String PATH = "/v3/identity/map";

  private MapV3Json() {}

  /**
   * {@code POST /v3/identity/map} of {@code sent}, all of kind {@code kind}, sealed by {@code v2}
   * as raw bytes ({@code application/octet-stream}, as UID2's SDK sends it).
   */
  public static MapAnswer call(
      ApiCaller caller, V2Envelopes v2, IdentityInput kind, ValueList sent) {
    byte[] body = MapJson.request(kind, sent);
    return caller.call(PATH, v2.sealedBinary(body, in -> answer(in, kind, sent.size())));
  }

  /**
   * Reads an answer (the envelope's JSON) for {@code expected} values of {@code kind}. The body is
   * read whole; a body in the server's own shape is scanned directly ({@link MapV3AnswerScanner}),
   * any other with Jackson's streaming parser.
   */
  public static MapAnswer answer(InputStream in, IdentityInput kind, int expected)
      throws IOException {
    byte[] body = in.readAllBytes();
    MapAnswer scanned = MapV3AnswerScanner.scan(body, kind, expected);
    if (scanned != null) {
      return scanned;
    }
    return parse(new ByteArrayInputStream(body), kind, expected);
  }

  /** Reads an answer with Jackson's streaming parser, whatever its shape. */
  static MapAnswer parse(InputStream in, IdentityInput kind, int expected) throws IOException {
    return Envelopes.read(in, p -> readBody(p, kind, expected)).successBody();
  }

  private static MapAnswer readBody(JsonParser p, IdentityInput kind, int expected)
      throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_OBJECT);
    Results results = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      if (name.equals(kind.parameterName())) {
        results = readArray(p, expected);
      } else if (p.currentToken() == JsonToken.START_ARRAY) {
        if (p.nextToken() != JsonToken.END_ARRAY) {
          throw new JsonParseException(p, "identity map answer lists a kind that was not sent");
        }
      } else {
        p.skipChildren();
      }
    }
    if (results == null) {
      throw new JsonParseException(p, "identity map answer lacks the kind sent");
    }
    return results.answer();
  }

  private static Results readArray(JsonParser p, int expected) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_ARRAY);
    Results r = new Results(expected);
    while (p.nextToken() == JsonToken.START_OBJECT) {
      if (r.count == expected) {
        throw new JsonParseException(p, "identity map answer has more entries than the request");
      }
      int uStart = -1;
      int uEnd = -1;
      int pStart = -1;
      int pEnd = -1;
      long refresh = -1;
      String error = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "u" -> {
            uStart = r.size();
            uEnd = r.append(p);
          }
          case "p" -> {
            if (value != JsonToken.VALUE_NULL) {
              pStart = r.size();
              pEnd = r.append(p);
            }
          }
          case "r" -> {
            if (value != JsonToken.VALUE_NUMBER_INT) {
              throw new JsonParseException(p, "identity map answer's r is not a whole number");
            }
            refresh = p.getLongValue();
            if (refresh > Long.MAX_VALUE / 1000) {
              throw new JsonParseException(p, "identity map answer's r is out of range");
            }
          }
          case "e" -> error = Envelopes.text(p);
          default -> p.skipChildren();
        }
      }
      if (error == null && (uStart < 0 || refresh < 0)) {
        throw new JsonParseException(p, "identity map answer entry lacks u or r");
      }
      r.add(uStart, uEnd, pStart, pEnd, refresh, error);
    }
    Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
    if (r.count != expected) {
      throw new JsonParseException(
          p, "identity map answer has " + r.count + " entries for " + expected + " values");
    }
    return r;
  }

  /** The entries as read: ids as byte ranges of one array. */
  private static final class Results {
    private final MapJson.Bytes ids;
    private final int[] offsets;
    private final int[] previous;
    private final long[] refresh;
    private final String[] reasons;
    private int count;

    Results(int expected) {
      ids = new MapJson.Bytes(expected * 90 + 64);
      offsets = new int[4 * expected];
      previous = new int[2 * expected];
      refresh = new long[expected];
      reasons = new String[expected];
    }

    void add(int uStart, int uEnd, int pStart, int pEnd, long refreshSeconds, String error) {
      int i = count++;
      if (error != null) {
        reasons[i] = error;
        previous[2 * i] = -1;
        previous[2 * i + 1] = -1;
        return;
      }
      offsets[4 * i] = uStart;
      offsets[4 * i + 1] = uEnd;
      offsets[4 * i + 2] = uEnd; // no bucket id on v3: an empty range
      offsets[4 * i + 3] = uEnd;
      previous[2 * i] = pStart;
      previous[2 * i + 1] = pEnd;
      refresh[i] = refreshSeconds * 1000L;
    }

    MapAnswer answer() {
      return new MapAnswer(ids.array(), offsets, reasons, false, previous, refresh);
    }

    int size() {
      return ids.size();
    }

    /** Appends the current string value as UTF-8; returns the new size. */
    int append(JsonParser p) throws IOException {
      return ids.appendText(p);
    }
  }
}
