package dev.veil.http;

import io.vertx.core.buffer.Buffer;

/**
 * How the chunks of a streamed answer ({@link BucketStream}) go on the wire: as the JSON they are
 * ({@link #JSON}, the v1 API), or sealed together into one v2 answer ({@link SealedChunkEncoding}).
 * An encoding says how much JSON a chunk may hold so that the encoded chunk stays within the bytes
 * the stream took from its {@link StreamBudget}. The exchange picks the encoding ({@link
 * Exchange#chunkEncoding()}). Not thread-safe: an encoding may carry state from one chunk of its
 * answer to the next.
 */
interface ChunkEncoding {
  /** The JSON as it is, {@code application/json}; keeps no state. */
  ChunkEncoding JSON =
      new ChunkEncoding() {
        @Override
        public String contentType() {
          return Exchange.JSON_CONTENT_TYPE;
        }

        @Override
        public int jsonBytesPerChunk(int wireBytes) {
          return wireBytes;
        }

        @Override
        public Buffer encode(JsonBytes json, boolean last) {
          return json.toBuffer();
        }
      };

  /** The answer's {@code Content-Type}. */
  String contentType();

  /** The most JSON bytes a chunk may hold so that its encoding is at most {@code wireBytes}. */
  int jsonBytesPerChunk(int wireBytes);

  /**
   * The bytes to send for the answer's next chunk of JSON; {@code last} for its final chunk. Takes
   * ownership of {@code json}.
   */
  Buffer encode(JsonBytes json, boolean last);
}
