package dev.veil.http;

import io.vertx.core.buffer.Buffer;
import java.io.OutputStream;

/**
 * An {@link OutputStream} that appends to a Vert.x {@link Buffer}, so that Jackson's streaming
 * generator writes response bytes straight into the buffer Netty sends. Not thread-safe.
 */
final class BufferOutputStream extends OutputStream {
  private final Buffer buffer;

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
}
