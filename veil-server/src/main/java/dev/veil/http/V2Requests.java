package dev.veil.http;

import dev.veil.client.ApiClient;
import dev.veil.client.ClientSecret;
import dev.veil.common.ErrorCode;
import dev.veil.common.VeilException;
import dev.veil.core.crypto.NonceSource;
import dev.veil.core.envelope.EnvelopeException;
import dev.veil.core.envelope.EnvelopeSecret;
import dev.veil.core.envelope.OpenedEnvelope;
import dev.veil.core.envelope.V2Envelope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.internal.buffer.BufferInternal;
import java.time.Clock;
import java.time.Duration;

/**
 * The v2 API's envelope around a handler (docs/http-api.md, "The v2 API"): the body, standard
 * base64 text, is opened with the authenticated caller's secret, its JSON goes to the handler as a
 * v1 POST body would, and the handler's 200 answer is sealed with the same secret and the request's
 * nonce, whole or, for a streamed answer, chunk by chunk ({@link SealedChunkEncoding}); errors go
 * out as plain JSON, spelled as UID2 spells them ({@code client_error}). A body that cannot be
 * opened gets UID2's message for the reason, never a 500. Thread-safe.
 */
final class V2Requests {
  static final String BINARY_CONTENT_TYPE = "application/octet-stream";

  private final Clock clock;
  private final Duration allowedSkew;
  private final NonceSource ivs = NonceSource.secure();

  /** What answers the opened JSON, as it would a v1 POST body. */
  @FunctionalInterface
  interface Handler {
    void handle(Exchange ex, Buffer json) throws Exception;
  }

  V2Requests(Clock clock, Duration allowedSkew) {
    this.clock = clock;
    this.allowedSkew = allowedSkew;
  }

  /**
   * Opens {@code body} and gives its JSON to {@code handler}, with the exchange set to seal the
   * answer.
   *
   * @throws VeilException CLIENT_ERROR for a body that is not a valid envelope under the caller's
   *     secret; UNAUTHORIZED for a caller without a secret
   */
  void handle(Exchange ex, Buffer body, Handler handler) throws Exception {
    handle(ex, body, false, handler);
  }

  /**
   * As {@link #handle(Exchange, Buffer, Handler)}; with {@code binaryAllowed}, a request of type
   * {@code application/octet-stream} carries the envelope as raw bytes and its 200 answer is raw
   * bytes of that type too, as UID2's SDK sends and reads {@code /v3/identity/map}.
   */
  void handle(Exchange ex, Buffer body, boolean binaryAllowed, Handler handler) throws Exception {
    V2Envelope format = binaryAllowed && isBinary(ex) ? V2Envelope.BINARY : V2Envelope.BASE64;
    ApiClient caller = ex.client();
    ClientSecret secret = caller == null ? null : caller.secret();
    ex.speakUid2();
    if (secret == null) {
      throw new VeilException(
          ErrorCode.UNAUTHORIZED,
          "This client has no secret yet: an administrator gives it one with"
              + " `veil admin client rotate-secret`");
    }
    if (body.length() == 0) {
      throw VeilException.clientError("Invalid body: Body is missing.");
    }
    OpenedEnvelope opened;
    try {
      opened =
          format.openRequest(body.getBytes(), secret.envelopeKey(), clock.instant(), allowedSkew);
    } catch (EnvelopeException e) {
      throw VeilException.clientError(message(e.reason()));
    }
    ex.sealAnswers(new AnswerSeal(format, secret.envelopeKey(), opened.nonce()));
    handler.handle(ex, payload(opened));
  }

  /**
   * The opened JSON as a buffer over the decrypted bytes, not a copy: {@link JsonBodies} parses a
   * heap buffer in place, from its offset.
   */
  static Buffer payload(OpenedEnvelope opened) {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(opened.payload()));
  }

  /**
   * A sealed body as a buffer without copying it ({@code Buffer.buffer(byte[])} copies); the caller
   * gives the array up.
   */
  static Buffer wrap(byte[] sealed) {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(sealed));
  }

  /** Seals the 200 answer to one opened request with the caller's secret and its nonce. */
  private final class AnswerSeal implements Exchange.Sealer {
    private final V2Envelope format;
    private final EnvelopeSecret key;
    private final long nonce;

    AnswerSeal(V2Envelope format, EnvelopeSecret key, long nonce) {
      this.format = format;
      this.key = key;
      this.nonce = nonce;
    }

    @Override
    public Buffer seal(Buffer json) {
      if (json instanceof BufferInternal internal) {
        ByteBuf bytes = internal.getByteBuf();
        if (bytes.hasArray()) { // as a JsonBytes answer is: sealed from its array, not a copy
          return wrap(
              format.sealResponse(
                  bytes.array(),
                  bytes.arrayOffset() + bytes.readerIndex(),
                  bytes.readableBytes(),
                  nonce,
                  key,
                  clock.instant(),
                  ivs));
        }
      }
      return wrap(format.sealResponse(json.getBytes(), nonce, key, clock.instant(), ivs));
    }

    @Override
    public String contentType() {
      return format == V2Envelope.BINARY ? BINARY_CONTENT_TYPE : Exchange.SEALED_CONTENT_TYPE;
    }

    @Override
    public ChunkEncoding streamed() {
      return new SealedChunkEncoding(format.responseSealer(nonce, key, clock.instant(), ivs));
    }
  }

  private static boolean isBinary(Exchange ex) {
    String type = ex.request().getHeader(HttpHeaders.CONTENT_TYPE);
    return type != null
        && type.regionMatches(true, 0, BINARY_CONTENT_TYPE, 0, BINARY_CONTENT_TYPE.length());
  }

  /** UID2's operator's message for each reason an envelope cannot be opened. */
  static String message(EnvelopeException.Reason reason) {
    return switch (reason) {
      case BAD_BASE64 -> "Invalid body: Body is not valid base64.";
      case TOO_SHORT -> "Invalid body: Body too short. Check encryption method.";
      case BAD_VERSION ->
          "Invalid body: Invalid request envelope format version: must be "
              + V2Envelope.VERSION
              + ".";
      case CANNOT_DECRYPT -> "Invalid body: Check encryption key (ClientSecret).";
      case STALE, FUTURE -> "Invalid timestamp: Request too old or client time drift.";
      case NONCE_MISMATCH -> "Invalid body: nonce mismatch.";
    };
  }
}
