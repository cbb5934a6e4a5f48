package dev.veil.sdk.internal;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.Consumer;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * {@link Transport} speaking HTTP/1.1 over the client's own sockets (plain, or TLS with the JDK's
 * default trust store and host name verification), keeping a few connections alive between
 * requests. It is the default because bulk mapping moves about 170 bytes per identifier: the JDK's
 * {@code HttpClient} spent 1.2–1.9 µs of CPU per identifier on that, a plain socket about 0.2 µs
 * (docs/benchmarks-client.md), and the client shares the machine with the server it measures.
 *
 * <p>It speaks what a Veil server (or a proxy in front of it) needs: requests with a {@code
 * Content-Length}, answers with a {@code Content-Length}, chunked, or delimited by the connection's
 * close; no redirects, no compression, no HTTP/2. A request on a pooled connection that the server
 * had closed meanwhile is sent again once on a new connection, before any retry of the {@link
 * dev.veil.sdk.RetryPolicy}. The request timeout bounds every wait for bytes (the answer's head and
 * each read of its body). A thread waiting for bytes is not woken by an interrupt (a JDK socket
 * does not look at it): the interrupt is seen once the answer comes or the timeout passes, and then
 * no retry follows ({@link ApiCaller}). Thread-safe.
 */
public final class SocketTransport implements Transport {
  private static final String USER_AGENT = "veil-java/0.1.0";
  private static final int MAX_IDLE = 8;

  /**
   * Pooled connections idle longer than this are closed instead of reused (the server's is 60 s).
   */
  private static final long MAX_IDLE_NANOS = Duration.ofSeconds(30).toNanos();

  /**
   * The receive buffer asked for, before connecting, where the system allows it whole: a mapping
   * answer (about 700 KB for 5,000 identifiers) then fits in the socket at once, so the server
   * writes it without waiting for this process to read (which, on a busy core, can be late), and it
   * is read in a few large reads. Setting a buffer turns off the kernel's own sizing, so it is left
   * alone where the system's maximum is lower (about 2–3 % off `veil map`'s wall time and CPU on
   * the benchmark machine; docs/benchmarks-client.md).
   */
  static final int RECEIVE_BUFFER = 4 << 20;

  private static final boolean SET_RECEIVE_BUFFER = systemAllowsReceiveBuffer(RECEIVE_BUFFER);

  private final String host;
  private final int port;
  private final boolean tls;
  private final String pathPrefix;
  private final String hostHeader;
  private final int connectTimeoutMillis;
  private final int readTimeoutMillis;
  private final Deque<HttpConnection> idle = new ArrayDeque<>();
  private final Consumer<HttpConnection> releaser = new Releaser();

  /**
   * @param baseUrl an http or https URL without query (a path prefix is kept)
   */
  public SocketTransport(String baseUrl, Duration connectTimeout, Duration requestTimeout) {
    URI uri = URI.create(baseUrl);
    this.tls = "https".equals(uri.getScheme());
    this.host = uri.getHost();
    this.port = uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80;
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    this.pathPrefix = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    this.hostHeader = uri.getPort() >= 0 ? host + ":" + port : host;
    this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
    this.readTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis());
  }

  /**
   * Whether this transport can reach {@code baseUrl} directly: the JVM's proxy settings name no
   * proxy for it. When they do, the JDK's client (which honours them) is used instead.
   */
  public static boolean reachesDirectly(String baseUrl) {
    ProxySelector selector = ProxySelector.getDefault();
    if (selector == null) {
      return true;
    }
    // A loop, not a stream: this runs before a run's first request, and the first stream of a
    // JVM costs milliseconds of class initialization and linkage (docs/benchmarks-client.md).
    for (Proxy proxy : selector.select(URI.create(baseUrl))) {
      if (proxy.type() != Proxy.Type.DIRECT) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Response send(Request request) throws IOException {
    byte[] head = head(request);
    HttpConnection pooled = pooled();
    if (pooled != null) {
      try {
        return exchange(pooled, head, request.body());
      } catch (IOException stale) {
        if (pooled.answerStarted() || stale instanceof SocketTimeoutException) {
          throw stale; // the server answered part of it, or is slow: not a connection it had closed
        }
        // the server closed the idle connection before this request reached it: send once more
      }
    }
    return exchange(connect(), head, request.body());
  }

  private Response exchange(HttpConnection connection, byte[] head, byte[] body)
      throws IOException {
    try {
      connection.write(head, body);
      return connection.readAnswer(releaser);
    } catch (IOException | RuntimeException e) {
      connection.closeAfter(e);
      throw e;
    }
  }

  private byte[] head(Request request) {
    StringBuilder h = new StringBuilder(256);
    h.append(request.method())
        .append(' ')
        .append(pathPrefix)
        .append(request.pathAndQuery())
        .append(" HTTP/1.1\r\n");
    h.append("Host: ").append(hostHeader).append("\r\n");
    h.append("User-Agent: ").append(USER_AGENT).append("\r\n");
    h.append("Accept: ").append(request.accept()).append("\r\n");
    if (request.apiKey() != null) {
      h.append("Authorization: Bearer ").append(request.apiKey()).append("\r\n");
    }
    if (request.body() != null) {
      h.append("Content-Type: ").append(request.contentType()).append("\r\n");
      h.append("Content-Length: ").append(request.body().length).append("\r\n");
    }
    h.append("\r\n");
    return h.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * Gives connections back to the pool (a class, not a method reference: see {@link
   * Sleeper.ThreadSleep}).
   */
  private final class Releaser implements Consumer<HttpConnection> {
    @Override
    public void accept(HttpConnection connection) {
      release(connection);
    }
  }

  private HttpConnection pooled() {
    long now = System.nanoTime();
    while (true) {
      HttpConnection c;
      synchronized (idle) {
        c = idle.pollFirst();
      }
      if (c == null) {
        return null;
      }
      if (now - c.idleSince() < MAX_IDLE_NANOS) {
        return c;
      }
      c.closeIdle();
    }
  }

  private void release(HttpConnection connection) {
    synchronized (idle) {
      if (idle.size() < MAX_IDLE) {
        idle.addFirst(connection);
        return;
      }
    }
    connection.closeIdle();
  }

  private HttpConnection connect() throws IOException {
    // A plain socket, not a channel's: a channel's would end a wait at an interrupt, but cost
    // veil map 0.12 s more CPU per million emails (bench/map-ab.sh, docs/benchmarks-client.md).
    Socket socket = new Socket();
    try {
      if (SET_RECEIVE_BUFFER) {
        socket.setReceiveBufferSize(RECEIVE_BUFFER);
      }
      socket.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(readTimeoutMillis);
      if (tls) {
        SSLSocket secure =
            (SSLSocket)
                ((SSLSocketFactory) SSLSocketFactory.getDefault())
                    .createSocket(socket, host, port, true);
        SSLParameters parameters = secure.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        secure.setSSLParameters(parameters);
        secure.startHandshake();
        socket = secure;
      }
      return new HttpConnection(socket);
    } catch (IOException | RuntimeException e) {
      try {
        socket.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * An answer whose body streams from its connection; closing it returns the connection to the
   * pool.
   */
  static final class SocketResponse implements Response {
    private final int status;
    private final HttpHead head;
    private final InputStream body;
    private final Runnable onClose;

    SocketResponse(int status, HttpHead head, InputStream body, Runnable onClose) {
      this.status = status;
      this.head = head;
      this.body = body;
      this.onClose = onClose;
    }

    @Override
    public int status() {
      return status;
    }

    @Override
    public Optional<String> header(String name) {
      return head.header(name);
    }

    @Override
    public InputStream body() {
      return body;
    }

    @Override
    public void close() {
      onClose.run();
    }
  }

  /**
   * Whether Linux's {@code net.core.rmem_max} is at least {@code bytes} (false where it cannot be
   * read).
   */
  static boolean systemAllowsReceiveBuffer(int bytes) {
    return numberInFileAtLeast(Path.of("/proc/sys/net/core/rmem_max"), bytes);
  }

  /**
   * Whether the number that {@code file} holds is at least {@code bytes} (false where it cannot be
   * read or is no number). Read in one read from the file's start: a file under {@code /proc/sys}
   * answers whole only there ({@code Files.readString} read it as "4" for "4194304" on Linux 6.18:
   * it sees a size of 0, reads nothing, then one byte, then finds the end).
   */
  static boolean numberInFileAtLeast(Path file, long bytes) {
    try (InputStream in = new FileInputStream(file.toFile())) {
      byte[] b = new byte[64];
      int n = in.read(b);
      return n > 0
          && Long.parseLong(new String(b, 0, n, StandardCharsets.US_ASCII).strip()) >= bytes;
    } catch (IOException | RuntimeException e) {
      return false; // not Linux, not readable, or not a number: the kernel's own sizing
    }
  }
}
