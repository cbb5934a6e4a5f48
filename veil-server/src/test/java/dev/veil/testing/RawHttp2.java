package dev.veil.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A bare TCP connection to an HTTP/2 (gRPC) port that sends none, part or all of a client's
 * connection preface (with an empty SETTINGS frame), then nothing more, and never answers what the
 * server sends: a client holding a connection idle.
 */
public final class RawHttp2 implements AutoCloseable {
  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] EMPTY_SETTINGS = {0, 0, 0, 4, 0, 0, 0, 0, 0};

  private final Socket socket;

  /** Whether the server had closed the connection before the preface could be written. */
  private boolean closedBeforeWriting;

  private RawHttp2(int port, byte[]... sent) {
    try {
      this.socket = new Socket(InetAddress.getLoopbackAddress(), port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      for (byte[] bytes : sent) {
        socket.getOutputStream().write(bytes);
      }
      socket.getOutputStream().flush();
    } catch (SocketException closedByTheServer) {
      closedBeforeWriting = true; // refused as it was accepted: reset, or broken pipe
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static RawHttp2 sendingNothing(int port) {
    return new RawHttp2(port);
  }

  public static RawHttp2 sendingPartOfThePreface(int port) {
    return new RawHttp2(port, "PRI * HTTP/2.0\r\n".getBytes(StandardCharsets.ISO_8859_1));
  }

  public static RawHttp2 sendingPrefaceAndSettings(int port) {
    return new RawHttp2(port, PREFACE, EMPTY_SETTINGS);
  }

  /**
   * Whether the server sent something (its SETTINGS frame) within {@code limit}: proof that it
   * accepted the connection and set it up, not only that the kernel queued it. Reads and drops what
   * arrived.
   */
  public boolean serverSpokeWithin(Duration limit) {
    try {
      socket.setSoTimeout((int) Math.max(1, limit.toMillis()));
      return socket.getInputStream().read(new byte[4096]) > 0;
    } catch (java.net.SocketTimeoutException silent) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether the server closed the connection within {@code limit}: reads (and drops) what it sends
   * until end of stream or a reset; false if the connection is still open after {@code limit}.
   */
  public boolean closedByServerWithin(Duration limit) {
    if (closedBeforeWriting) {
      return true;
    }
    long deadline = System.nanoTime() + limit.toNanos();
    byte[] buffer = new byte[4096];
    try {
      InputStream in = socket.getInputStream();
      while (true) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return false;
        }
        socket.setSoTimeout((int) left);
        if (in.read(buffer) < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException open) {
      return false;
    } catch (SocketException reset) {
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing a test socket
    }
  }
}
