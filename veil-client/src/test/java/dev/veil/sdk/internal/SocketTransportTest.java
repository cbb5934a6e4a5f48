package dev.veil.sdk.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's own HTTP/1.1 connections against a scripted server on a real socket. */
class SocketTransportTest {
  private final ScriptedServer server = new ScriptedServer();

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private SocketTransport transport() {
    return new SocketTransport(
        "http://127.0.0.1:" + server.port() + "/prefix",
        Duration.ofSeconds(5),
        Duration.ofSeconds(5));
  }

  private static String body(Transport.Response r) throws IOException {
    return new String(r.body().readAllBytes(), StandardCharsets.UTF_8);
  }

  @Test
  void post_sendsHeadAndBody_andReusesTheConnection() throws Exception {
    server.answer(
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}");
    server.answer("HTTP/1.1 201 Created\r\ncontent-length: 5\r\nRetry-After: 3\r\n\r\nhello");
    SocketTransport transport = transport();

    try (Transport.Response r =
        transport.send(new Transport.Request("/v1/identity/map", "[1]".getBytes(UTF_8), "key"))) {
      assertThat(r.status()).isEqualTo(200);
      assertThat(body(r)).isEqualTo("{}");
    }
    try (Transport.Response r = transport.send(new Transport.Request("/v1/x?y=1", null, null))) {
      assertThat(r.status()).isEqualTo(201);
      assertThat(r.header("retry-after")).contains("3");
      assertThat(body(r)).isEqualTo("hello");
    }

    assertThat(server.connections()).isEqualTo(1);
    String first = server.requests().get(0);
    assertThat(first)
        .startsWith("POST /prefix/v1/identity/map HTTP/1.1\r\n")
        .contains("Host: 127.0.0.1:" + server.port())
        .contains("Authorization: Bearer key")
        .contains("Content-Type: application/json\r\n")
        .contains("Accept: application/json\r\n")
        .contains("Content-Length: 3")
        .endsWith("\r\n\r\n[1]");
    assertThat(server.requests().get(1))
        .startsWith("GET /prefix/v1/x?y=1 HTTP/1.1\r\n")
        .doesNotContain("Authorization")
        .doesNotContain("Content-Length");
  }

  @Test
  void aBinaryBody_isSentAsOctetStream_andAcceptsABinaryOrJsonAnswer() throws Exception {
    server.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    byte[] sealed = {0, 1, 2, (byte) 0xff};

    try (Transport.Response r =
        transport()
            .send(
                new Transport.Request(
                    "/v3/identity/map", sealed, Transport.Request.BINARY, "key"))) {
      assertThat(body(r)).isEqualTo("ok");
    }

    assertThat(server.requests().get(0))
        .startsWith("POST /prefix/v3/identity/map HTTP/1.1\r\n")
        .contains("Content-Type: application/octet-stream\r\n")
        .contains("Accept: application/octet-stream, application/json\r\n")
        .contains("Content-Length: 4\r\n");
  }

  @Test
  void aLargeAnswer_isReadWhole() throws Exception {
    StringBuilder large = new StringBuilder();
    for (int i = 0; large.length() < 3 * 1024 * 1024; i++) {
      large.append(i).append(',');
    }
    server.answer("HTTP/1.1 200 OK\r\nContent-Length: " + large.length() + "\r\n\r\n" + large);

    try (Transport.Response r =
        transport().send(new Transport.Request("/v1/identity/map", "[1]".getBytes(UTF_8), "key"))) {
      assertThat(body(r)).isEqualTo(large.toString());
    }
  }

  @Test
  void theReceiveBuffer_isSetOnlyWhereTheSystemAllowsItWhole() throws Exception {
    // The system's maximum as cat reads it (Files.readString read "4" of "4194304" here).
    Path rmemMax = Path.of("/proc/sys/net/core/rmem_max");
    boolean expected = false;
    if (Files.isReadable(rmemMax)) {
      Process cat = new ProcessBuilder("cat", rmemMax.toString()).start();
      String max =
          new String(cat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
      assertThat(cat.waitFor()).isZero();
      expected = Long.parseLong(max) >= SocketTransport.RECEIVE_BUFFER;
    }
    assertThat(SocketTransport.systemAllowsReceiveBuffer(SocketTransport.RECEIVE_BUFFER))
        .isEqualTo(expected);
    assertThat(SocketTransport.systemAllowsReceiveBuffer(Integer.MAX_VALUE)).isFalse();
  }

  @Test
  void theNumberInAFile_isReadWhole_andAnythingElseCountsAsNo(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("rmem_max");
    Files.writeString(file, "4194304\n");
    assertThat(SocketTransport.numberInFileAtLeast(file, 4194304)).isTrue();
    assertThat(SocketTransport.numberInFileAtLeast(file, 4194305)).isFalse();
    Files.writeString(file, "212992\n");
    assertThat(SocketTransport.numberInFileAtLeast(file, 4194304)).isFalse();
    Files.writeString(file, "lots\n");
    assertThat(SocketTransport.numberInFileAtLeast(file, 1)).isFalse();
    Files.writeString(file, "");
    assertThat(SocketTransport.numberInFileAtLeast(file, 1)).isFalse();
    assertThat(SocketTransport.numberInFileAtLeast(dir.resolve("missing"), 1)).isFalse();
    assertThat(SocketTransport.numberInFileAtLeast(dir, 1)).isFalse(); // a directory
  }

  @Test
  void chunkedBodies_interimAnswers_andBodiesEndedByClose() throws Exception {
    server.answer(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4;ext=1\r\nWiki\r\n6\r\npedia \r\nB\r\nin chunks.\n\r\n0\r\nTrailer: x\r\n\r\n");
    server.answer("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end", true);
    SocketTransport transport = transport();

    try (Transport.Response r = transport.send(new Transport.Request("/a", null, null))) {
      assertThat(body(r)).isEqualTo("Wikipedia in chunks.\n");
    }
    try (Transport.Response r = transport.send(new Transport.Request("/b", null, null))) {
      assertThat(body(r)).isEqualTo("until the end");
    }
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void aPooledConnectionTheServerClosed_isReplaced_withoutAnError() throws Exception {
    server.answer(
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na",
        true); // the server hangs up after answering
    server.answer("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb");
    SocketTransport transport = transport();

    try (Transport.Response r = transport.send(new Transport.Request("/1", null, null))) {
      assertThat(body(r)).isEqualTo("a");
    }
    server.awaitClosed();
    try (Transport.Response r = transport.send(new Transport.Request("/2", null, null))) {
      assertThat(body(r)).isEqualTo("b");
    }
    assertThat(server.connections()).isEqualTo(2);
  }

  @Test
  void anUnreadRestOfABody_isSkipped_soTheConnectionStaysUsable() throws Exception {
    server.answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789");
    server.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    SocketTransport transport = transport();

    try (Transport.Response r = transport.send(new Transport.Request("/1", null, null))) {
      assertThat(r.body().read()).isEqualTo('0');
    }
    try (Transport.Response r = transport.send(new Transport.Request("/2", null, null))) {
      assertThat(body(r)).isEqualTo("ok");
    }
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void whatIsNotHttp_orEndsEarly_isATransportFailure() throws Exception {
    server.answer("SSH-2.0-OpenSSH\r\n\r\n", true);
    server.answer("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort", true);
    SocketTransport transport = transport();

    assertThatThrownBy(() -> transport.send(new Transport.Request("/1", null, null)))
        .isInstanceOf(ProtocolException.class);
    assertThatThrownBy(
            () -> {
              try (Transport.Response r = transport.send(new Transport.Request("/2", null, null))) {
                body(r);
              }
            })
        .isInstanceOf(IOException.class)
        .hasMessageContaining("before its Content-Length");
  }

  /**
   * Answers each request with the next scripted bytes; optionally closes the connection after it.
   */
  private static final class ScriptedServer implements AutoCloseable {
    private final ServerSocket socket;
    private final BlockingQueue<Object[]> script = new LinkedBlockingQueue<>();
    private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
    private final BlockingQueue<Boolean> closed = new LinkedBlockingQueue<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread acceptor;

    ScriptedServer() {
      try {
        socket = new ServerSocket(0);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      acceptor = new Thread(this::accept, "scripted-http");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    int connections() {
      return connections.get();
    }

    List<String> requests() {
      return requests;
    }

    void answer(String raw) {
      answer(raw, false);
    }

    void answer(String raw, boolean thenClose) {
      script.add(new Object[] {raw.getBytes(StandardCharsets.ISO_8859_1), thenClose});
    }

    void awaitClosed() throws InterruptedException {
      closed.take();
    }

    private void accept() {
      while (!socket.isClosed()) {
        try (Socket s = socket.accept()) {
          connections.incrementAndGet();
          serve(s);
        } catch (IOException | InterruptedException ended) {
          // a connection or the server ended; the test's assertions judge what happened
        }
      }
    }

    private void serve(Socket s) throws IOException, InterruptedException {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      while (true) {
        String request = readRequest(in);
        if (request == null) {
          return;
        }
        requests.add(request);
        Object[] next = script.take();
        out.write((byte[]) next[0]);
        out.flush();
        if ((Boolean) next[1]) {
          s.shutdownOutput();
          closed.add(true);
          return;
        }
      }
    }

    /** Head and body (by Content-Length) of one request, or null when the client closed. */
    private static String readRequest(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) >= 0) {
        head.write(c);
        String text = head.toString(StandardCharsets.ISO_8859_1);
        if (text.endsWith("\r\n\r\n")) {
          int length = 0;
          for (String line : text.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(15).trim());
            }
          }
          return text + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
