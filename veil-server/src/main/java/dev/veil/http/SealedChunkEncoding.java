package dev.veil.http;

import dev.veil.core.envelope.ResponseSealer;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * A streamed answer sealed as one v2 answer (docs/http-api.md, "The v2 API"): each chunk's JSON
 * goes through the answer's {@link ResponseSealer} and out as the base64 text it gives, so the
 * chunks joined are the one sealed answer, {@code text/plain} like every sealed answer, that the
 * whole JSON would have been. A chunk of at most {@link #jsonBytesPerChunk jsonBytesPerChunk(n)}
 * JSON bytes is at most {@code n} bytes of text. Not thread-safe: one per answer.
 */
final class SealedChunkEncoding implements ChunkEncoding {
  private final ResponseSealer sealer;

  SealedChunkEncoding(ResponseSealer sealer) {
    this.sealer = sealer;
  }

  @Override
  public String contentType() {
    return Exchange.SEALED_CONTENT_TYPE;
  }

  @Override
  public int jsonBytesPerChunk(int wireBytes) {
    return ResponseSealer.maxPayloadBytes(wireBytes);
  }

  @Override
  public Buffer encode(JsonBytes json, boolean last) {
    byte[] text =
        last
            ? sealer.last(json.array(), 0, json.length())
            : sealer.next(json.array(), 0, json.length());
    return BufferInternal.buffer(Unpooled.wrappedBuffer(text));
  }
}
