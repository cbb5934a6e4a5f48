package dev.veil.http;

import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;

/**
 * Reads a request body under the size limit (docs/spec.md 11), refusing it while reading rather
 * than after: a {@code Content-Length} over the limit is answered 413 before a single body byte is
 * read; a body that grows past the limit (chunked, or longer than declared) is answered 413 as soon
 * as the limit is crossed. Either way reading stops (the request is paused) and the connection
 * closes after the answer, so the rest of the body is never buffered. A chunked body whose framing
 * the decoder refused ({@link StrictRequestDecoder}) ends early with the request's decoder result
 * failed, and is answered 400. A body that does not arrive whole within {@code http.body-timeout}
 * of the head is answered 408 by the listener's sweep ({@link ListenerConnections}); while it
 * arrives the connection counts as waiting, not busy, under the node's connection limit.
 */
final class BodyReader {
  static final String ENCODED =
      "Request body is not readable: compressed bodies (Content-Encoding) are not supported, send"
          + " it uncompressed";

  private BodyReader() {}

  /**
   * What to do with a complete body; an exception it throws is answered by {@link ErrorResponses}.
   */
  @FunctionalInterface
  interface BodyHandler {
    void handle(Buffer body) throws Exception;
  }

  /** Calls {@code then} with the complete body, unless it is refused (then the answer is sent). */
  static void read(Exchange ex, int maxBytes, BodyHandler then) {
    HttpServerRequest request = ex.request();
    long declared = declaredLength(request);
    if (declared > maxBytes) {
      request.pause();
      tooLarge(ex, maxBytes);
      return;
    }
    if ("100-continue".equalsIgnoreCase(request.getHeader(HttpHeaders.EXPECT))) {
      ex.response().writeContinue();
    }
    Buffer body = Buffer.buffer(declared > 0 ? (int) declared : 512);
    TrackedConnection connection = ex.connection();
    connection.awaitingBody(ex); // the body deadline runs from the head (ListenerConnections)
    request.handler(
        chunk -> {
          if (ex.answered()) {
            return; // refused (413) or late (408): the rest is dropped
          }
          if (body.length() + chunk.length() > maxBytes) {
            request.pause();
            tooLarge(ex, maxBytes);
          } else {
            body.appendBuffer(chunk);
          }
        });
    request.endHandler(
        v -> {
          if (ex.answered() || !connection.bodyArrived()) {
            return; // refused (413) or late (408)
          }
          if (!request.decoderResult().isSuccess()) {
            // The decoder refused the body's chunk framing (StrictRequestDecoder): what arrived is
            // not the body.
            ex.fail(ErrorResponses.malformedBody(request.decoderResult().cause()));
            return;
          }
          try {
            then.handle(body);
          } catch (VeilException e) {
            boolean compressed = e.code() == ErrorCode.CLIENT_ERROR && isCompressed(request, body);
            ex.fail(compressed ? VeilException.clientError(ENCODED) : e);
          } catch (Exception e) {
            ex.fail(e);
          }
        });
  }

  /**
   * Whether a refused body is a compressed one: it declares a content coding ({@code gzip}, …) and
   * does not begin as JSON text would. Bodies are never decoded, so such a body fails as JSON, and
   * the answer should say why rather than "not valid UTF-8". Looked at only once a body was
   * refused, so accepted requests pay nothing.
   */
  private static boolean isCompressed(HttpServerRequest request, Buffer body) {
    String coding = request.getHeader(HttpHeaders.CONTENT_ENCODING);
    if (coding == null
        || coding.isBlank()
        || coding.trim().equalsIgnoreCase("identity")
        || body.length() == 0) {
      return false;
    }
    byte first = body.getByte(0);
    return first != '{'
        && first != '['
        && first != ' '
        && first != '\t'
        && first != '\r'
        && first != '\n';
  }

  private static long declaredLength(HttpServerRequest request) {
    String value = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1; // the HTTP decoder already rejects a malformed Content-Length
    }
  }

  private static void tooLarge(Exchange ex, int maxBytes) {
    ErrorResponses.send(
        ex, ErrorCode.PAYLOAD_TOO_LARGE, "Request body too large: at most " + maxBytes + " bytes");
  }
}
