package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.core.identity.IdentityInput;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire format of {@code POST /v1/identity/map}: a body {@code {"<kind>":[values…]}} and an
 * answer {@code {"mapped":[{identifier,advertising_id,bucket_id}…],
 * "unmapped":[{identifier,reason}…]}}, both lists in request order. The answer is matched back to
 * the request by walking both lists along the request; identical values in one request map
 * identically, so duplicates cannot be confused.
 */
public final class MapJson {
  /** Bytes of a request body besides its values: {@code {"phone_hash":[]}} and a margin. */
  public static final int ENVELOPE_BYTES = 32;

  private MapJson() {}

  /** The result for one sent value: mapped (reason null) or unmapped (ids null). */
  public record Entry(String advertisingId, String bucketId, String reason) {
    public boolean isMapped() {
      return reason == null;
    }
  }

  /** The request body for {@code values} of one kind. */
  public static byte[] request(IdentityInput kind, List<String> values) {
    return Envelopes.write(g -> {
      g.writeStartObject();
      g.writeArrayFieldStart(kind.parameterName());
      for (String v : values) {
        g.writeString(v);
      }
      g.writeEndArray();
      g.writeEndObject();
    });
  }

  /**
   * A conservative bound of the bytes {@code value} adds to a request body: UTF-8 length, escapes,
   * quotes and comma.
   */
  public static int encodedSizeBound(String value) {
    int bytes = 3;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20) {
        bytes += 6;
      } else if (c == '"' || c == '\\') {
        bytes += 2;
      } else if (c < 0x80) {
        bytes += 1;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /** Reads an answer to a request of {@code sent} values; one entry per sent value, in order. */
  public static Entry[] answer(InputStream in, List<String> sent) throws IOException {
    Envelopes.Envelope<Lists> envelope = Envelopes.read(in, MapJson::readLists);
    return match(envelope.successBody(), sent);
  }

  private record Lists(List<String[]> mapped, List<String[]> unmapped) {}

  private static Lists readLists(JsonParser p) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_OBJECT);
    List<String[]> mapped = new ArrayList<>();
    List<String[]> unmapped = new ArrayList<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      if ("mapped".equals(name)) {
        readArray(p, mapped, "identifier", "advertising_id", "bucket_id");
      } else if ("unmapped".equals(name)) {
        readArray(p, unmapped, "identifier", "reason");
      } else {
        p.skipChildren();
      }
    }
    return new Lists(mapped, unmapped);
  }

  /** Reads an array of objects, keeping the string members {@code names} of each, in that order. */
  private static void readArray(JsonParser p, List<String[]> out, String... names) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_ARRAY);
    while (p.nextToken() == JsonToken.START_OBJECT) {
      String[] row = new String[names.length];
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        int at = indexOf(names, name);
        if (at >= 0) {
          row[at] = Envelopes.text(p);
        } else {
          p.skipChildren();
        }
      }
      for (String value : row) {
        if (value == null) {
          throw new JsonParseException(p, "mapping answer entry lacks a member");
        }
      }
      out.add(row);
    }
    Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
  }

  private static int indexOf(String[] names, String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static Entry[] match(Lists lists, List<String> sent) throws IOException {
    Entry[] entries = new Entry[sent.size()];
    int m = 0;
    int u = 0;
    for (int i = 0; i < entries.length; i++) {
      String value = sent.get(i);
      if (m < lists.mapped.size() && lists.mapped.get(m)[0].equals(value)) {
        String[] row = lists.mapped.get(m++);
        entries[i] = new Entry(row[1], row[2], null);
      } else if (u < lists.unmapped.size() && lists.unmapped.get(u)[0].equals(value)) {
        entries[i] = new Entry(null, null, lists.unmapped.get(u++)[1]);
      } else {
        throw new JsonParseException(null, "mapping answer does not match the request at position " + i);
      }
    }
    if (m != lists.mapped.size() || u != lists.unmapped.size()) {
      throw new JsonParseException(null, "mapping answer has more entries than the request");
    }
    return entries;
  }
}
