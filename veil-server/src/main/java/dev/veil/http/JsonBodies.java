package dev.veil.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import dev.veil.common.VeilException;
import dev.veil.core.text.Utf8;
import io.netty.buffer.ByteBuf;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.io.CharConversionException;
import java.io.IOException;

/**
 * Parses request bodies with Jackson's streaming parser under explicit limits: nesting depth,
 * number length, string and document length, duplicate keys refused. Every way a body can be
 * malformed becomes a 400 client error whose message names the problem and never quotes the body
 * (Jackson's own messages do quote it, so they are not passed on).
 *
 * <p>Bodies are parsed as JSON whatever their {@code Content-Type}, so that a browser may send
 * {@code text/plain} and avoid a CORS preflight. Thread-safe.
 */
final class JsonBodies {
  static final int MAX_NESTING_DEPTH = 32;
  static final int MAX_NUMBER_LENGTH = 64;

  private final JsonFactory factory;

  JsonBodies(int maxBodyBytes) {
    this.factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_NESTING_DEPTH)
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .maxStringLength(maxBodyBytes)
                    .maxNameLength(Math.min(maxBodyBytes, 50_000))
                    .maxDocumentLength(maxBodyBytes)
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();
  }

  /**
   * Reads one JSON value from a parser positioned before it; the implementation of a body parser.
   */
  @FunctionalInterface
  interface BodyParser<T> {
    T parse(JsonParser json) throws IOException;
  }

  /**
   * Parses {@code body} with {@code parser}, then requires that nothing but whitespace follows.
   *
   * @throws VeilException CLIENT_ERROR for any malformed, oversized or trailing input
   */
  <T> T parse(Buffer body, BodyParser<T> parser) {
    try (JsonParser json = parserOver(body)) {
      T value = parser.parse(json);
      requireEnd(json);
      return value;
    } catch (StreamConstraintsException e) {
      throw VeilException.clientError(
          "JSON body exceeds a limit: at most "
              + MAX_NESTING_DEPTH
              + " levels of nesting and numbers of at most "
              + MAX_NUMBER_LENGTH
              + " digits");
    } catch (CharConversionException e) {
      throw VeilException.clientError("Malformed JSON body: not valid UTF-8");
    } catch (JsonEOFException e) {
      throw VeilException.clientError("Malformed JSON body: unexpected end of input");
    } catch (IOException e) {
      String problem =
          e.getMessage() != null && e.getMessage().contains("UTF-8")
              ? "not valid UTF-8"
              : e.getMessage() != null && e.getMessage().startsWith("Duplicate field")
                  ? "a key appears more than once"
                  : "not valid JSON";
      throw VeilException.clientError("Malformed JSON body: " + problem);
    }
  }

  /**
   * A parser over the body's own bytes when it has an array (it does: BodyReader builds it on the
   * heap), once they are known to be UTF-8: Jackson's own reader lets overlong forms, surrogates
   * and code points above U+10FFFF through as other characters, and reads a body whose first bytes
   * hold a NUL as UTF-16 or UTF-32.
   */
  private JsonParser parserOver(Buffer body) throws IOException {
    if (body instanceof BufferInternal internal) {
      ByteBuf bytes = internal.getByteBuf();
      if (bytes.hasArray()) {
        int from = bytes.arrayOffset() + bytes.readerIndex();
        requireUtf8(bytes.array(), from, from + bytes.readableBytes());
        return factory.createParser(bytes.array(), from, bytes.readableBytes());
      }
    }
    byte[] copy = body.getBytes();
    requireUtf8(copy, 0, copy.length);
    return factory.createParser(copy);
  }

  private static void requireUtf8(byte[] b, int from, int to) {
    if (Utf8.malformedAt(b, from, to) >= 0) {
      throw VeilException.clientError("Malformed JSON body: not valid UTF-8");
    }
    for (int i = from; i < Math.min(to, from + 4); i++) {
      if (b[i] == 0) {
        throw VeilException.clientError(
            "Malformed JSON body: not UTF-8 (UTF-16 and UTF-32 are not accepted)");
      }
    }
  }

  private static void requireEnd(JsonParser json) {
    boolean more;
    try {
      more = json.nextToken() != null;
    } catch (IOException e) {
      more = true;
    }
    if (more) {
      throw VeilException.clientError(
          "Malformed JSON body: unexpected content after the JSON value");
    }
  }

  /**
   * The top-level members of a JSON object body as {@link Params}: string values are kept, {@code
   * null} counts as absent, any other value is kept as "not a string" (refused if asked for).
   */
  Params params(Buffer body) {
    return parse(body, JsonBodies::readParams);
  }

  private static Params readParams(JsonParser json) throws IOException {
    if (json.nextToken() != JsonToken.START_OBJECT) {
      throw VeilException.clientError(
          json.currentToken() == null
              ? "Request body is empty: expected a JSON object"
              : "Request body must be a JSON object");
    }
    Params params = Params.empty();
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String name = json.currentName();
      JsonToken value = json.nextToken();
      if (value == JsonToken.VALUE_STRING) {
        params.add(name, json.getText());
      } else if (value != JsonToken.VALUE_NULL) {
        params.addNonString(name);
        json.skipChildren();
      }
    }
    return params;
  }
}
