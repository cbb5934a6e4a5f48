package dev.veil.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Connections that ask for the whole buckets answer ({@code GET /v1/identity/buckets}, or any
 * request given whole) and then read nothing, as a stalled or hostile client does: each has a 4 KiB
 * receive buffer, so the answer backs up into the server.
 */
public final class UnreadBuckets implements AutoCloseable {
  /** The last bytes of a complete chunked answer: the empty last chunk. */
  private static final byte[] LAST_CHUNK = "\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private final List<Socket> sockets = new ArrayList<>();

  private UnreadBuckets() {}

  /**
   * Opens {@code count} connections to 127.0.0.1:{@code port}, each sending one request with {@code
   * mapperKey}.
   */
  public static UnreadBuckets open(int port, String mapperKey, int count) throws IOException {
    byte[] request =
        ("GET /v1/identity/buckets?since_timestamp=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer "
                + mapperKey
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    return open(port, request, count);
  }

  /**
   * Opens {@code count} connections to 127.0.0.1:{@code port}, each sending {@code request} (head
   * and body, as it goes on the wire).
   */
  public static UnreadBuckets open(int port, byte[] request, int count) throws IOException {
    UnreadBuckets clients = new UnreadBuckets();
    try {
      for (int i = 0; i < count; i++) {
        Socket socket = new Socket();
        clients.sockets.add(socket);
        socket.setReceiveBufferSize(
            4096); // before connecting, so the window is small from the start
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
        socket.getOutputStream().write(request);
      }
    } catch (IOException | RuntimeException e) {
      clients.close();
      throw e;
    }
    return clients;
  }

  /**
   * Reads each connection until the server closes it, for at most {@code limit} in all, and returns
   * how many of them ended without the whole answer (cut off rather than completed). Throws if one
   * is still open at the limit.
   */
  public int readUntilClosed(Duration limit) throws IOException {
    long deadline = System.nanoTime() + limit.toNanos();
    int cutOff = 0;
    for (Socket socket : sockets) {
      if (!endsWithLastChunk(socket, deadline)) {
        cutOff++;
      }
    }
    return cutOff;
  }

  private static boolean endsWithLastChunk(Socket socket, long deadline) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    byte[] tail = new byte[LAST_CHUNK.length];
    InputStream in = socket.getInputStream();
    while (true) {
      long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
      int n;
      try {
        n = in.read(buffer);
      } catch (SocketTimeoutException e) {
        throw new AssertionError("the server kept a connection open past the limit", e);
      } catch (SocketException reset) {
        return false;
      }
      if (n < 0) {
        return Arrays.equals(tail, LAST_CHUNK);
      }
      keepTail(tail, buffer, n);
    }
  }

  private static void keepTail(byte[] tail, byte[] read, int n) {
    if (n >= tail.length) {
      System.arraycopy(read, n - tail.length, tail, 0, tail.length);
    } else {
      System.arraycopy(tail, n, tail, 0, tail.length - n);
      System.arraycopy(read, 0, tail, tail.length - n, n);
    }
  }

  @Override
  public void close() {
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing a test socket
      }
    }
  }
}
