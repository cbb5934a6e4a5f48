import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Clients that ask a node for the whole buckets answer and never read it, for bench/slow-readers.sh:
 * {@code java bench/SlowReaders.java PORT MAPPER_KEY N}. Each of the N connections has a 4 KiB
 * receive buffer and sends one {@code GET /v1/identity/buckets?since_timestamp=1}; then the program
 * prints {@code opened N} and holds them, unread, until it is killed.
 */
public final class SlowReaders {
  public static void main(String[] args) throws IOException, InterruptedException {
    int port = Integer.parseInt(args[0]);
    byte[] request = ("GET /v1/identity/buckets?since_timestamp=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Authorization: Bearer " + args[1] + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    int n = Integer.parseInt(args[2]);
    List<Socket> held = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Socket socket = new Socket();
      socket.setReceiveBufferSize(4096);
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket.getOutputStream().write(request);
      held.add(socket);
    }
    System.out.println("opened " + held.size());
    Thread.sleep(Long.MAX_VALUE);
  }
}
