package dev.veil.http.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A bare TCP connection for tests that must control the bytes on the wire (partial headers,
 * oversized heads, bodies that are never sent). Reads block for at most 15 s.
 */
public final class RawHttp implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RawHttp(int port) throws IOException {
    this.socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(15_000);
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
  }

  public static RawHttp connect(int port) {
    try {
      return new RawHttp(port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public RawHttp write(String ascii) {
    return write(ascii.getBytes(StandardCharsets.ISO_8859_1));
  }

  public RawHttp write(byte[] bytes) {
    try {
      out.write(bytes);
      out.flush();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one response: status line and headers, then a Content-Length body if any. */
  public String readResponse() {
    try {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          break;
        }
        head.write(b);
      }
      String headText = head.toString(StandardCharsets.ISO_8859_1);
      int length = 0;
      for (String line : headText.split("\r\n")) {
        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          length = Integer.parseInt(line.substring(15).trim());
        }
      }
      byte[] body = in.readNBytes(length);
      return headText + new String(body, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether the server closed the connection within {@code limit}: the next read sees end of stream
   * or a reset (false if a byte comes, or nothing within the limit).
   */
  public boolean closedByServerWithin(java.time.Duration limit) {
    try {
      socket.setSoTimeout((int) limit.toMillis());
      return in.read() < 0;
    } catch (java.net.SocketTimeoutException open) {
      return false;
    } catch (SocketException reset) {
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether the server closed the connection: the next read sees end of stream or a reset. */
  public boolean closedByServer() {
    try {
      return in.read() < 0;
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
