package dev.veil.http;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes the JSON envelope of every response (docs/spec.md 1.1): {@code
 * {"status":"success","body":…}}, {@code {"status":"optout"}} and {@code
 * {"status":<code>,"message":<text>}}. Bodies are written with Jackson's streaming generator
 * straight into a Vert.x buffer; no tree is built.
 */
final class Envelope {
  /** The one generator factory of the HTTP adapter; thread-safe. */
  static final JsonFactory JSON = JsonFactory.builder().build();

  private static final Buffer OPTOUT = Buffer.buffer("{\"status\":\"optout\"}");

  private Envelope() {}

  /** Writes the value of {@code body} with the generator positioned where a value is expected. */
  @FunctionalInterface
  interface BodyWriter {
    void write(JsonGenerator json) throws IOException;
  }

  /** {@code {"status":"success","body":<written by body>}}. */
  static Buffer success(BodyWriter body, int sizeHint) {
    BufferOutputStream out = new BufferOutputStream(sizeHint);
    try (JsonGenerator json = generator(out)) {
      json.writeStartObject();
      json.writeStringField("status", "success");
      json.writeFieldName("body");
      body.write(json);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // BufferOutputStream never throws; a writer bug would
    }
    return out.buffer();
  }

  /** {@code {"status":"optout"}}. */
  static Buffer optout() {
    return OPTOUT.copy();
  }

  /** {@code {"status":<status>,"message":<message>}}. */
  static Buffer failure(String status, String message) {
    BufferOutputStream out = new BufferOutputStream(64 + message.length());
    try (JsonGenerator json = generator(out)) {
      json.writeStartObject();
      json.writeStringField("status", status);
      json.writeStringField("message", message);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.buffer();
  }

  static JsonGenerator generator(BufferOutputStream out) throws IOException {
    return JSON.createGenerator(out, JsonEncoding.UTF8);
  }
}
