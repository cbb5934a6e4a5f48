package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.veil.core.identity.IdentityInput;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The wire format of {@code POST /v1/identity/map}: a body {@code {"<kind>":[values…]}} and an
 * answer {@code {"mapped":[{identifier,advertising_id,bucket_id}…],
 * "unmapped":[{identifier,reason}…]}}, both lists in request order. Values travel as UTF-8 bytes
 * end to end (the cache stores them so), and the answer is read into one array ({@link MapAnswer})
 * without a tree or a string per member. The answer is matched back to the request by walking both
 * lists along the request, comparing each echoed identifier with the value sent; identical values
 * in one request map identically, so duplicates cannot be confused.
 */
public final class MapJson {
  /** Bytes of a request body besides its values: {@code {"phone_hash":[]}} and a margin. */
  public static final int ENVELOPE_BYTES = 32;

  private MapJson() {}

  /** The request body for {@code values} of one kind. */
  public static byte[] request(IdentityInput kind, ValueList values) {
    String head = "{\"" + kind.parameterName() + "\":[";
    boolean plain = !values.needsEscapes();
    // Without escapes the bound is exact (each value, its quotes and a comma), less the last
    // comma: the body is made at its size, not copied to it.
    int exact = head.length() + values.jsonBytesBound() - (values.size() > 0 ? 1 : 0) + 2;
    byte[] out = new byte[plain ? exact : ENVELOPE_BYTES + values.jsonBytesBound()];
    int n = ascii(out, 0, head);
    byte[] src = values.bytes();
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        out[n++] = ',';
      }
      if (plain) {
        out[n++] = '"';
        System.arraycopy(src, values.start(i), out, n, values.length(i));
        n += values.length(i);
        out[n++] = '"';
      } else {
        n = string(out, n, src, values.start(i), values.end(i));
      }
    }
    n = ascii(out, n, "]}");
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  private static int ascii(byte[] out, int at, String text) {
    for (int i = 0; i < text.length(); i++) {
      out[at++] = (byte) text.charAt(i);
    }
    return at;
  }

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private static int string(byte[] out, int at, byte[] src, int from, int to) {
    out[at++] = '"';
    for (int i = from; i < to; i++) {
      byte b = src[i];
      if (b >= 0 && (b < 0x20 || b == '"' || b == '\\')) {
        out[at++] = '\\';
        if (b == '"' || b == '\\') {
          out[at++] = b;
        } else {
          out[at++] = 'u';
          out[at++] = '0';
          out[at++] = '0';
          out[at++] = HEX[b >> 4];
          out[at++] = HEX[b & 0xF];
        }
      } else {
        out[at++] = b;
      }
    }
    out[at++] = '"';
    return at;
  }

  /**
   * Reads an answer to a request of {@code sent} values; one result per sent value, in order. The
   * body is read whole; a body in the server's own shape is scanned directly ({@link
   * MapAnswerScanner}), any other with Jackson's streaming parser.
   */
  public static MapAnswer answer(InputStream in, ValueList sent) throws IOException {
    byte[] body = in.readAllBytes();
    MapAnswer scanned = MapAnswerScanner.scan(body, sent);
    return scanned != null ? scanned : parse(new ByteArrayInputStream(body), sent);
  }

  /**
   * {@code POST /v1/identity/map} of {@code sent}, all of kind {@code kind}, through {@code
   * caller}: one answer per value.
   */
  public static MapAnswer call(ApiCaller caller, IdentityInput kind, ValueList sent) {
    return caller.call("/v1/identity/map", request(kind, sent), answerReader(sent));
  }

  /** Reads the answer to a request of {@code sent} with {@link #answer}. */
  public static ApiCaller.BodyReader<MapAnswer> answerReader(ValueList sent) {
    return new AnswerReader(sent);
  }

  /** {@link #answer} as a body reader (a class, not a lambda: see {@link Sleeper.ThreadSleep}). */
  private static final class AnswerReader implements ApiCaller.BodyReader<MapAnswer> {
    private final ValueList sent;

    AnswerReader(ValueList sent) {
      this.sent = sent;
    }

    @Override
    public MapAnswer read(InputStream in) throws IOException {
      return answer(in, sent);
    }
  }

  /** Reads an answer with Jackson's streaming parser (any member order, spaces, escapes). */
  static MapAnswer parse(InputStream in, ValueList sent) throws IOException {
    Lists lists = Envelopes.read(in, p -> readLists(p, sent.size())).successBody();
    return lists.match(sent);
  }

  private static Lists readLists(JsonParser p, int expected) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_OBJECT);
    Lists lists = new Lists(expected);
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      if ("mapped".equals(name)) {
        readArray(p, lists, true);
      } else if ("unmapped".equals(name)) {
        readArray(p, lists, false);
      } else {
        p.skipChildren();
      }
    }
    return lists;
  }

  /**
   * Reads {@code [{identifier, advertising_id, bucket_id}…]} or {@code [{identifier, reason}…]}.
   */
  private static void readArray(JsonParser p, Lists lists, boolean mapped) throws IOException {
    Envelopes.expect(p, p.currentToken(), JsonToken.START_ARRAY);
    Bytes echoes = mapped ? lists.mappedEchoes : lists.unmappedEchoes;
    while (p.nextToken() == JsonToken.START_OBJECT) {
      int echoStart = -1;
      int echoEnd = -1;
      int advStart = -1;
      int advEnd = -1;
      int bucketStart = -1;
      int bucketEnd = -1;
      String reason = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        if ("identifier".equals(name)) {
          echoStart = echoes.size();
          echoEnd = echoes.appendText(p);
        } else if (mapped && "advertising_id".equals(name)) {
          advStart = lists.ids.size();
          advEnd = lists.ids.appendText(p);
        } else if (mapped && "bucket_id".equals(name)) {
          bucketStart = lists.ids.size();
          bucketEnd = lists.ids.appendText(p);
        } else if (!mapped && "reason".equals(name)) {
          reason = Envelopes.text(p);
        } else {
          p.skipChildren();
        }
      }
      if (echoStart < 0 || (mapped ? advStart < 0 || bucketStart < 0 : reason == null)) {
        throw new JsonParseException(p, "mapping answer entry lacks a member");
      }
      if (mapped) {
        lists.addMapped(echoStart, echoEnd, advStart, advEnd, bucketStart, bucketEnd);
      } else {
        lists.addUnmapped(echoStart, echoEnd, reason);
      }
    }
    Envelopes.expect(p, p.currentToken(), JsonToken.END_ARRAY);
  }

  /** The two lists as read: echoed identifiers and ids as byte ranges, reasons as words. */
  private static final class Lists {
    final Bytes ids;
    final Bytes mappedEchoes;
    final Bytes unmappedEchoes = new Bytes(64);

    /**
     * Per mapped row: echo start, echo end, advertising id start, its end, bucket id start, its
     * end.
     */
    private int[] mapped;

    private int mappedCount;
    private int[] unmapped = new int[8];
    private String[] reasons = new String[4];
    private int unmappedCount;

    Lists(int expected) {
      ids = new Bytes(expected * 60 + 64);
      mappedEchoes = new Bytes(expected * 32 + 64);
      mapped = new int[6 * Math.max(1, expected)];
    }

    void addMapped(
        int echoStart, int echoEnd, int advStart, int advEnd, int bucketStart, int bucketEnd) {
      if (6 * (mappedCount + 1) > mapped.length) {
        mapped = Arrays.copyOf(mapped, mapped.length * 2);
      }
      int at = 6 * mappedCount++;
      mapped[at] = echoStart;
      mapped[at + 1] = echoEnd;
      mapped[at + 2] = advStart;
      mapped[at + 3] = advEnd;
      mapped[at + 4] = bucketStart;
      mapped[at + 5] = bucketEnd;
    }

    void addUnmapped(int echoStart, int echoEnd, String reason) {
      if (2 * (unmappedCount + 1) > unmapped.length) {
        unmapped = Arrays.copyOf(unmapped, unmapped.length * 2);
        reasons = Arrays.copyOf(reasons, reasons.length * 2);
      }
      unmapped[2 * unmappedCount] = echoStart;
      unmapped[2 * unmappedCount + 1] = echoEnd;
      reasons[unmappedCount++] = reason;
    }

    MapAnswer match(ValueList sent) throws IOException {
      int n = sent.size();
      int[] offsets = new int[4 * n];
      String[] results = new String[n];
      int m = 0;
      int u = 0;
      for (int i = 0; i < n; i++) {
        if (m < mappedCount
            && sent.equalsAt(i, mappedEchoes.array(), mapped[6 * m], mapped[6 * m + 1])) {
          System.arraycopy(mapped, 6 * m++ + 2, offsets, 4 * i, 4);
        } else if (u < unmappedCount
            && sent.equalsAt(i, unmappedEchoes.array(), unmapped[2 * u], unmapped[2 * u + 1])) {
          results[i] = reasons[u++];
        } else {
          throw new JsonParseException(
              null, "mapping answer does not match the request at position " + i);
        }
      }
      if (m != mappedCount || u != unmappedCount) {
        throw new JsonParseException(null, "mapping answer has more entries than the request");
      }
      return new MapAnswer(ids.array(), offsets, results);
    }
  }

  /**
   * A growable byte array that string values are appended to as UTF-8 (also {@link MapV3Json}'s).
   */
  static final class Bytes {
    private byte[] b;
    private int size;

    Bytes(int capacity) {
      b = new byte[capacity];
    }

    int size() {
      return size;
    }

    byte[] array() {
      return b;
    }

    /** Appends the current string value as UTF-8; returns the new size. */
    int appendText(JsonParser p) throws IOException {
      Envelopes.expect(p, p.currentToken(), JsonToken.VALUE_STRING);
      char[] chars = p.getTextCharacters();
      int off = p.getTextOffset();
      int len = p.getTextLength();
      ensure(len);
      for (int i = 0; i < len; i++) {
        char c = chars[off + i];
        if (c >= 0x80) {
          byte[] utf8 = new String(chars, off + i, len - i).getBytes(StandardCharsets.UTF_8);
          ensure(utf8.length);
          System.arraycopy(utf8, 0, b, size, utf8.length);
          size += utf8.length;
          return size;
        }
        b[size++] = (byte) c;
      }
      return size;
    }

    private void ensure(int more) {
      if (size + more > b.length) {
        b = Arrays.copyOf(b, Math.max(b.length * 2, size + more));
      }
    }
  }
}
