package dev.veil.sdk.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Veil's JSON envelopes, read and written with Jackson's streaming API (no object mapping, so a
 * 5,000-entry batch answer is read without building a tree). Answers look like {@code
 * {"status":"success","body":<value>}}, {@code {"status":"optout"}} or {@code
 * {"status":"<error>","message":"<text>"}}; members may come in any order and unknown members are
 * skipped.
 */
public final class Envelopes {
  /** Shared and thread-safe, like every Jackson factory once configured. */
  public static final JsonFactory JSON = new JsonFactory();

  /** The envelope's {@code status} when the request succeeded. */
  public static final String SUCCESS = "success";

  /** The envelope's {@code status} for an opted-out identity. */
  public static final String OPTOUT = "optout";

  private Envelopes() {}

  /** Reads the value of {@code body}; the parser stands on the value's first token. */
  @FunctionalInterface
  public interface ValueReader<T> {
    T read(JsonParser parser) throws IOException;
  }

  /** A read envelope: its status word and its body (null when there was none). */
  public record Envelope<T>(String status, T body) {
    public boolean isSuccess() {
      return SUCCESS.equals(status);
    }

    public boolean isOptOut() {
      return OPTOUT.equals(status);
    }

    /** The body of a successful answer, else an {@link IOException} naming the status. */
    public T successBody() throws IOException {
      if (!isSuccess() || body == null) {
        throw new JsonParseException(
            null, "expected status success with a body, got status " + status);
      }
      return body;
    }
  }

  /** An error envelope's status word and message; either may be null if the body had none. */
  public record ErrorEnvelope(String status, String message) {}

  /** Reads a 2xx answer's envelope, giving {@code body} to {@code bodyReader}. */
  public static <T> Envelope<T> read(InputStream in, ValueReader<T> bodyReader) throws IOException {
    try (JsonParser p = JSON.createParser(in)) {
      expect(p, p.nextToken(), JsonToken.START_OBJECT);
      String status = null;
      T body = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("status".equals(name) && value == JsonToken.VALUE_STRING) {
          status = p.getText();
        } else if ("body".equals(name) && value != JsonToken.VALUE_NULL) {
          body = bodyReader.read(p);
        } else {
          p.skipChildren();
        }
      }
      if (status == null) {
        throw new JsonParseException(p, "answer without a status");
      }
      return new Envelope<>(status, body);
    }
  }

  /** The status and message of an error answer; both null when it is not a JSON object. */
  public static ErrorEnvelope error(byte[] bytes) {
    String status = null;
    String message = null;
    try (JsonParser p = JSON.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return new ErrorEnvelope(null, null);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (value == JsonToken.VALUE_STRING && "status".equals(name)) {
          status = p.getText();
        } else if (value == JsonToken.VALUE_STRING && "message".equals(name)) {
          message = p.getText();
        } else {
          p.skipChildren();
        }
      }
    } catch (IOException notJson) {
      // keep what was read; a proxy's HTML error page has neither
    }
    return new ErrorEnvelope(status, message);
  }

  /** Writes one JSON value with {@code writer} and returns its UTF-8 bytes. */
  public static byte[] write(JsonWriter writer) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      writer.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException("writing JSON to memory cannot fail", e);
    }
    return out.toByteArray();
  }

  /** Writes a JSON value. */
  @FunctionalInterface
  public interface JsonWriter {
    void write(JsonGenerator generator) throws IOException;
  }

  /** Fails unless {@code actual} is {@code expected}. */
  public static void expect(JsonParser p, JsonToken actual, JsonToken expected) throws IOException {
    if (actual != expected) {
      throw new JsonParseException(p, "expected " + expected + " but found " + actual);
    }
  }

  /** The text of a string value, failing on any other token. */
  public static String text(JsonParser p) throws IOException {
    expect(p, p.currentToken(), JsonToken.VALUE_STRING);
    return p.getText();
  }

  /** The value of an integer token, failing on any other token. */
  public static long number(JsonParser p) throws IOException {
    expect(p, p.currentToken(), JsonToken.VALUE_NUMBER_INT);
    return p.getLongValue();
  }
}
