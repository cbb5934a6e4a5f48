package dev.veil.sdk.internal;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ProtocolException;
import java.net.Socket;
import java.util.function.Consumer;

/**
 * One HTTP/1.1 connection of a {@link SocketTransport}: writes a request, reads the answer's head
 * and hands out its body as a stream. When the answer is closed, the connection goes back to the
 * pool if its body was read to the end (or a small rest could be skipped) and the server keeps it
 * open; otherwise it is closed. Used by one request at a time.
 */
final class HttpConnection {
  private static final int BUFFER = 64 * 1024;

  /**
   * Unread body bytes skipped on close to keep the connection; more than this closes it instead.
   */
  private static final int MAX_DRAIN = 64 * 1024;

  private final Socket socket;
  private final BufferedInputStream in;
  private final OutputStream out;
  private long idleSince;
  private boolean answerStarted;

  HttpConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream(), BUFFER);
    this.out = new BufferedOutputStream(socket.getOutputStream(), BUFFER);
  }

  long idleSince() {
    return idleSince;
  }

  /** Whether any byte of the current answer arrived (then a failure is not a stale connection). */
  boolean answerStarted() {
    return answerStarted;
  }

  void write(byte[] head, byte[] body) throws IOException {
    answerStarted = false;
    out.write(head);
    if (body != null) {
      out.write(body);
    }
    out.flush();
  }

  /**
   * Reads the answer's head; {@code release} gets the connection back when the answer is closed.
   */
  Transport.Response readAnswer(Consumer<HttpConnection> release) throws IOException {
    in.mark(1);
    if (in.read() < 0) {
      throw new EOFException("connection closed before an answer");
    }
    answerStarted = true;
    in.reset();
    HttpHead head = HttpHead.read(in);
    Body body = body(head);
    return new SocketTransport.SocketResponse(
        head.status(), head, body, new Finish(head, body, release));
  }

  /**
   * Closing an answer: drains it and gives the connection back (a class, not a lambda: see {@link
   * Sleeper.ThreadSleep}).
   */
  private final class Finish implements Runnable {
    private final HttpHead head;
    private final Body body;
    private final Consumer<HttpConnection> release;

    Finish(HttpHead head, Body body, Consumer<HttpConnection> release) {
      this.head = head;
      this.body = body;
      this.release = release;
    }

    @Override
    public void run() {
      finish(head, body, release);
    }
  }

  private Body body(HttpHead head) throws ProtocolException {
    int status = head.status();
    if (status == 204 || status == 304) {
      return new FixedBody(in, 0);
    }
    if (head.chunked()) {
      return new ChunkedBody(in);
    }
    long length = head.contentLength();
    return length >= 0 ? new FixedBody(in, length) : new UntilCloseBody(in);
  }

  private void finish(HttpHead head, Body body, Consumer<HttpConnection> release) {
    boolean reusable;
    try {
      reusable = head.keepAlive() && body.skipRest(MAX_DRAIN);
    } catch (IOException unreadable) {
      reusable =
          false; // the answer was already read as far as its reader wanted; only the connection is
      // lost
    }
    if (reusable) {
      idleSince = System.nanoTime();
      release.accept(this);
    } else {
      closeIdle();
    }
  }

  /** Closes the socket after {@code failure}, attaching any failure to close it. */
  void closeAfter(Exception failure) {
    try {
      socket.close();
    } catch (IOException suppressed) {
      failure.addSuppressed(suppressed);
    }
  }

  /** Closes a connection no request is using; a failure to close it concerns no request. */
  void closeIdle() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // nothing was in flight on it; the descriptor is released either way
    }
  }

  /**
   * An answer body; {@link #close()} does nothing, the connection decides on the answer's close.
   */
  private abstract static class Body extends InputStream {
    final InputStream in;

    Body(InputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    /** Every body reads in blocks; {@link #read()} goes through this. */
    @Override
    public abstract int read(byte[] b, int off, int len) throws IOException;

    /** Reads and drops up to {@code limit} remaining bytes; true if the body then ended. */
    boolean skipRest(int limit) throws IOException {
      byte[] scratch = new byte[8192];
      long skipped = 0;
      int n;
      while (skipped <= limit && (n = read(scratch, 0, scratch.length)) >= 0) {
        skipped += n;
      }
      return skipped <= limit && isReusable();
    }

    /** Whether the body's end is known without closing the connection. */
    boolean isReusable() {
      return true;
    }

    @Override
    public void close() {}
  }

  private static final class FixedBody extends Body {
    private long left;

    FixedBody(InputStream in, long length) {
      super(in);
      this.left = length;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left == 0) {
        return -1;
      }
      if (len == 0) {
        return 0;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new EOFException("answer body ends before its Content-Length");
      }
      left -= n;
      return n;
    }

    @Override
    public int available() throws IOException {
      return (int) Math.min(left, in.available());
    }

    /** The rest of the body in one array of its exact size (the length is known: no copies). */
    @Override
    public byte[] readAllBytes() throws IOException {
      if (left > Integer.MAX_VALUE - 8) {
        return super.readAllBytes();
      }
      byte[] all = new byte[(int) left];
      int n = 0;
      while (n < all.length) {
        int k = read(all, n, all.length - n);
        if (k < 0) {
          throw new EOFException("answer body ends before its Content-Length");
        }
        n += k;
      }
      return all;
    }
  }

  private static final class UntilCloseBody extends Body {
    UntilCloseBody(InputStream in) {
      super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return in.read(b, off, len);
    }

    @Override
    boolean isReusable() {
      return false;
    }
  }

  /**
   * {@code chunked} transfer coding: hex size line, data, CR LF; size 0 ends it (trailers are
   * skipped).
   */
  private static final class ChunkedBody extends Body {
    private long chunkLeft;
    private boolean ended;

    ChunkedBody(InputStream in) {
      super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (ended) {
        return -1;
      }
      if (chunkLeft == 0) {
        chunkLeft = nextChunkSize();
        if (chunkLeft == 0) {
          skipTrailers();
          ended = true;
          return -1;
        }
      }
      if (len == 0) {
        return 0;
      }
      int n = in.read(b, off, (int) Math.min(len, chunkLeft));
      if (n < 0) {
        throw new EOFException("chunked answer body ends early");
      }
      chunkLeft -= n;
      if (chunkLeft == 0) {
        expectLineEnd();
      }
      return n;
    }

    private long nextChunkSize() throws IOException {
      long size = 0;
      int digits = 0;
      int c = in.read();
      for (; c >= 0 && Character.digit(c, 16) >= 0; c = in.read()) {
        if (++digits > 15) {
          throw new ProtocolException("chunk size too large");
        }
        size = size * 16 + Character.digit(c, 16);
      }
      if (digits == 0) {
        throw new ProtocolException("malformed chunk size");
      }
      while (c >= 0 && c != '\n') { // chunk extensions
        c = in.read();
      }
      if (c < 0) {
        throw new EOFException("chunked answer body ends early");
      }
      return size;
    }

    private void expectLineEnd() throws IOException {
      int c = in.read();
      if (c == '\r') {
        c = in.read();
      }
      if (c != '\n') {
        throw new ProtocolException("chunk not followed by CR LF");
      }
    }

    private void skipTrailers() throws IOException {
      int lineLength = 0;
      for (int c = in.read(); ; c = in.read()) {
        if (c < 0) {
          throw new EOFException("chunked answer body ends early");
        }
        if (c == '\n') {
          if (lineLength == 0) {
            return;
          }
          lineLength = 0;
        } else if (c != '\r') {
          if (++lineLength > HttpHead.MAX_BYTES) {
            throw new ProtocolException("trailer line too long");
          }
        }
      }
    }
  }
}
