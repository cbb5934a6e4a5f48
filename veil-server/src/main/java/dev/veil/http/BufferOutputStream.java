package dev.veil.http;

import io.vertx.core.buffer.Buffer;
import java.io.OutputStream;

/**
 * An {@link OutputStream} that appends to a Vert.x {@link Buffer}, so that Jackson's streaming
 * generator writes response bytes straight into the buffer Netty sends. {@link #take()} hands over
 * the bytes written so far and starts a new buffer (used by streamed responses). Not thread-safe.
 */
final class BufferOutputStream extends OutputStream {
  private Buffer buffer;

  BufferOutputStream(int initialCapacity) {
    this.buffer = Buffer.buffer(initialCapacity);
  }

  @Override
  public void write(int b) {
    buffer.appendByte((byte) b);
  }

  @Override
  public void write(byte[] bytes, int off, int len) {
    buffer.appendBytes(bytes, off, len);
  }

  /** The bytes written so far. */
  Buffer buffer() {
    return buffer;
  }

  /** Returns the bytes written since the last call and continues into a fresh buffer. */
  Buffer take(int nextCapacity) {
    Buffer full = buffer;
    buffer = Buffer.buffer(nextCapacity);
    return full;
  }
}
